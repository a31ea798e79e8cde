"""The scorer protocol shared by MetaRAG, RT4CHART and anything users plug in."""

from __future__ import annotations

import contextlib
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, runtime_checkable

from guardrail._sync import run_sync
from guardrail.exceptions import ConfigError
from guardrail.models import (
    Factoid,
    JudgeCall,
    ReportStatus,
    ResolvedStatement,
    ScoreReport,
    Span,
    StageTiming,
    Usage,
    merge_spans,
)
from guardrail.scoring.failures import ParseFailure, as_failure

if TYPE_CHECKING:
    from guardrail.judges.base import Judge
    from guardrail.localize.model import SpanLocalizer

_log = logging.getLogger(__name__)


def resolve_localizer(
    choice: SpanLocalizer | Literal["packaged"] | None,
) -> SpanLocalizer | None:
    """``"packaged"`` -> the built-in word-level localizer; ``None`` -> no narrowing."""
    if choice == "packaged":
        from guardrail.localize.model import packaged_localizer

        return packaged_localizer()
    if choice is not None and not callable(getattr(choice, "narrow", None)):
        raise ConfigError("localizer must have a narrow() method, be 'packaged', or be None")
    return choice


def check_threshold(threshold: float) -> float:
    """``threshold`` if it is a valid flagging threshold (within [0, 1]), else ``ConfigError``."""
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"threshold must be in [0, 1], got {threshold}")
    return threshold


def with_parse_failure(call: JudgeCall, failure: ParseFailure | str | None) -> JudgeCall:
    """``call`` with ``parse_failure``, ``parse_causes`` and ``reply_unusable`` set when the
    reply needed a fallback rule (a plain string note has cause ``"other"``)."""
    found = as_failure(failure)
    if found is None:
        return call
    return call.model_copy(
        update={
            "parse_failure": found.note,
            "parse_causes": list(found.causes),
            "reply_unusable": found.unusable,
        }
    )


#: The call logs of the scoring runs started in this context, when a caller watches them
#: (see :func:`watch_call_logs`).
_WATCHED_LOGS: ContextVar[list[CallLog] | None] = ContextVar("guardrail_call_logs", default=None)


@contextlib.contextmanager
def watch_call_logs() -> Iterator[list[CallLog]]:
    """Collect the :class:`CallLog` of every scoring run started inside the block (including in
    tasks created there): a caller that may cancel a run (a deadline, a client that left) can
    still record the judge calls it made."""
    logs: list[CallLog] = []
    token = _WATCHED_LOGS.set(logs)
    try:
        yield logs
    finally:
        _WATCHED_LOGS.reset(token)


@dataclass
class CallLog:
    """The judge calls and stage timings of one scoring run, in the order they were recorded."""

    calls: list[JudgeCall] = field(default_factory=list)
    stages: list[StageTiming] = field(default_factory=list)

    def __post_init__(self) -> None:
        watched = _WATCHED_LOGS.get()
        if watched is not None:
            watched.append(self)

    def record(self, call: JudgeCall, failure: ParseFailure | str | None = None) -> None:
        self.calls.append(with_parse_failure(call, failure))

    def usage(self, started: float) -> Usage:
        """What the run cost, its wall time measured from ``started`` (``perf_counter``)."""
        return Usage.from_calls(self.calls, self.stages, time.perf_counter() - started)


def flagged_spans(factoids: Sequence[Factoid], flagged: bool) -> list[Span]:
    """The merged spans of the flagged factoids (their focus when narrowed); ``[]`` when the
    report is not ``flagged``."""
    if not flagged:
        return []
    return merge_spans([s for f in factoids if f.flagged for s in (f.focus or f.spans)])


@runtime_checkable
class Scorer(Protocol):
    """What the guard calls. A scorer that takes a per-call ``cascade`` keyword (the policy's
    per-topic cascade) says so with a class attribute ``supports_cascade = True``."""

    method: str

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport: ...


class ScorerBase(ABC):
    """Shared base of the built-in scorers: implement :meth:`score`, get :meth:`score_sync`."""

    method: str
    localizer: SpanLocalizer | None = None
    #: The judges the scorer calls (set by :func:`~guardrail.scoring.factory.build_scorer`);
    #: their capabilities say, e.g., whether the scorer works offline.
    judges: tuple[Judge, ...] = ()
    #: Whether :meth:`score` takes ``cascade=`` (a topic's cascade choice).
    supports_cascade: ClassVar[bool] = False

    def localized(
        self, report: ScoreReport, question: str, answer: str, contexts: Sequence[str]
    ) -> ScoreReport:
        """``report`` narrowed by :attr:`localizer` (if any).

        Every factoid that scored above zero and has spans gets ``focus``; ``flagged_spans``
        becomes the focus of the flagged factoids. The flag, the scores and the factoids' own
        spans are unchanged. Should the localizer fail, the report is kept as it was and the
        failure is noted in ``settings``: narrowing is a refinement and never costs a report.
        """
        if self.localizer is None or not any(c.strip() for c in contexts):
            return report
        targets = [i for i, f in enumerate(report.factoids) if f.score > 0 and f.spans]
        if not targets:
            return report
        try:
            narrowed = self.localizer.narrow(
                answer, question, contexts, [report.factoids[i].spans for i in targets]
            )
            if len(narrowed) != len(targets):
                raise ValueError(f"{len(narrowed)} results for {len(targets)} factoids")
        except Exception as exc:
            _log.warning("localizer %s failed: %r", self.localizer.name, exc)
            failed = f"{self.localizer.name} (failed: {type(exc).__name__})"
            return report.model_copy(update={"settings": {**report.settings, "localizer": failed}})
        factoids = list(report.factoids)
        for i, focus in zip(targets, narrowed, strict=True):
            factoids[i] = factoids[i].model_copy(update={"focus": list(focus)})
        return report.model_copy(
            update={"factoids": factoids, "flagged_spans": flagged_spans(factoids, report.flagged)}
        )

    def build_report(
        self,
        status: ReportStatus,
        factoids: list[Factoid],
        threshold: float,
        log: CallLog,
        started: float,
        settings: dict[str, object],
        *,
        resolved: Sequence[ResolvedStatement] = (),
    ) -> ScoreReport:
        """The report over scored ``factoids``: score = max, flagged when ``score >= threshold``.

        Each factoid's own ``flagged`` must use the same ``threshold`` (so a flagged factoid
        implies a flagged report). ``unaligned_flagged`` lists flagged factoids with no span.
        """
        score = max((f.score for f in factoids), default=0.0)
        flagged = bool(factoids) and score >= threshold
        return ScoreReport(
            method=self.method,
            score=score,
            threshold=threshold,
            flagged=flagged,
            status=status,
            factoids=factoids,
            flagged_spans=flagged_spans(factoids, flagged),
            unaligned_flagged=[f.index for f in factoids if f.flagged and not f.aligned],
            usage=log.usage(started),
            calls=list(log.calls),
            settings=settings,
            resolved=list(resolved),
        )

    @abstractmethod
    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport: ...

    def score_sync(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        """Blocking wrapper around :meth:`score`; refuses to run inside an event loop."""
        return run_sync(self.score(question, answer, contexts, threshold=threshold))
