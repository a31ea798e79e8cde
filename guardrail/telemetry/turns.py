"""The guard's side of telemetry: one context manager per turn, two calls per scoring attempt.

This module imports no OpenTelemetry code. :class:`Telemetry` imports
:mod:`guardrail.telemetry.otel` (and with it ``opentelemetry-api``) on the first turn it
traces; when the API is not installed, or the telemetry is off, every hook is a no-op costing a
context-variable lookup.

How a guard uses it (the whole hook)::

    with self.telemetry.turn(policy=..., redaction=..., question=..., answer=...) as trace:
        ...                                  # the turn
        mark = scoring_started(calls)        # around each scoring attempt
        report, error = await self._score(...)
        scoring_done(mark, report, error)
        ...
        trace.done(result)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from guardrail.models import GuardResult, JudgeCall, ScoreReport
    from guardrail.telemetry.otel import Backend, Mark, Recorder

__all__ = ["Telemetry", "TurnTrace", "scoring_done", "scoring_started"]

_log = logging.getLogger(__name__)
#: The recorder of the turn running in this context (None: not traced).
_CURRENT: ContextVar[Recorder | None] = ContextVar("guardrail_turn_trace", default=None)
#: False once ``opentelemetry-api`` was found missing (checked once per process).
_API_MISSING: list[bool] = []


class TurnTrace(Protocol):
    """What a guard reports its turn's result to."""

    def done(self, result: GuardResult) -> None:
        """The turn's result (called once, before the ``with`` block ends)."""


class _Off:
    """The trace of a turn that is not traced: ignores the result."""

    def done(self, result: GuardResult) -> None:
        pass


_OFF = _Off()


class Telemetry:
    """Where a guard's spans and metrics go, and what they may carry.

    ``tracer_provider`` / ``meter_provider``: OpenTelemetry providers; ``None`` (the default)
    uses the global ones, so an application that configured the SDK gets guardrail's spans with
    no further setup. ``record_texts``: put the question, the answer and the final answer on the
    turn span — only as far as the guard's audit redaction allows (``"hash"``: digests,
    ``"drop"``: nothing). ``judge_spans``: a span per judge call (``False`` keeps the stage
    spans only); calls faster than ``judge_span_min_ms`` that succeeded at the first try are
    only counted on their stage span (``guardrail.judge.calls_without_span``) — every call to
    a model server takes longer, while an in-process judge's calls take microseconds and a
    span each would cost more than the call (0 gives every call a span). ``enabled=False``
    turns everything off.
    """

    def __init__(
        self,
        *,
        tracer_provider: Any = None,
        meter_provider: Any = None,
        record_texts: bool = False,
        judge_spans: bool = True,
        judge_span_min_ms: float = 1.0,
        enabled: bool = True,
    ) -> None:
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider
        self.record_texts = record_texts
        self.judge_spans = judge_spans
        if not judge_span_min_ms >= 0:
            raise ValueError(f"judge_span_min_ms must be >= 0, got {judge_span_min_ms}")
        self.judge_span_min_ms = judge_span_min_ms
        self.enabled = enabled
        self._backend: Backend | None = None

    @classmethod
    def off(cls) -> Telemetry:
        """Telemetry that records nothing, whatever the global providers are."""
        return cls(enabled=False)

    def backend(self) -> Backend | None:
        """The OpenTelemetry side, built on first use; ``None`` when off or not installed."""
        if not self.enabled or _API_MISSING:
            return None
        if self._backend is None:
            try:
                from guardrail.telemetry.otel import Backend
            except ImportError:
                _API_MISSING.append(True)
                return None
            self._backend = Backend(self)
        return self._backend

    @contextlib.contextmanager
    def turn(
        self, *, policy: str, redaction: str, question: str, answer: str
    ) -> Iterator[TurnTrace]:
        """Trace one guarded turn: its span is current (and the parent of the judges' own
        spans, if their HTTP clients are instrumented) until the block ends."""
        backend = self.backend()
        if backend is None:
            yield _OFF
            return
        try:
            recorder = backend.start(
                policy=policy, redaction=redaction, question=question, answer=answer
            )
        except Exception:  # telemetry trouble never costs a turn
            _log.warning("guardrail telemetry: the turn span could not start", exc_info=True)
            yield _OFF
            return
        token = _CURRENT.set(recorder)
        try:
            yield recorder
        except BaseException as exc:
            recorder.failed(exc)
            raise
        finally:
            _CURRENT.reset(token)
            try:
                recorder.end()
            except Exception:
                _log.warning("guardrail telemetry: the turn could not be recorded", exc_info=True)


def scoring_started(calls: list[JudgeCall]) -> Mark | None:
    """Before a scoring attempt: when it started and how many of the turn's calls came before."""
    recorder = _CURRENT.get()
    return None if recorder is None else recorder.mark(calls)


def scoring_done(mark: Mark | None, report: ScoreReport | None, error: str | None) -> None:
    """After a scoring attempt: its report (or the error that replaced it)."""
    recorder = _CURRENT.get()
    if recorder is not None and mark is not None:
        recorder.scored(mark, report, error)
