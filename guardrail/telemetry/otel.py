"""Spans and instruments of guarded turns, through ``opentelemetry-api``.

Imported by :class:`~guardrail.telemetry.turns.Telemetry` on the first traced turn (importing
this module imports the API). The turn span is live: it starts when the turn starts and is the
current span meanwhile. Its children are built when the turn ends, from what the guard records
anyway — each scoring attempt's start and end, the report's stage timings and every judge
call's latency and tokens — so tracing adds no work inside the scorers. Their durations are
measured; their start times are derived: stages run back to back from the attempt's start (the
order and durations the report gives), and a stage's judge calls all start with the stage (they
run concurrently).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Span, Status, StatusCode

from guardrail._version import __version__
from guardrail.audit.record import TextRedaction, redact_text

if TYPE_CHECKING:
    from guardrail.models import GuardResult, JudgeCall, ScoreReport


class TelemetrySettings(Protocol):
    """What the backend reads of its :class:`~guardrail.telemetry.turns.Telemetry`."""

    @property
    def tracer_provider(self) -> Any: ...

    @property
    def meter_provider(self) -> Any: ...

    @property
    def record_texts(self) -> bool: ...

    @property
    def judge_spans(self) -> bool: ...

    @property
    def judge_span_min_ms(self) -> float: ...


__all__ = ["Backend", "Instruments", "Mark", "Recorder"]

#: The same buckets as the service's Prometheus histograms (seconds).
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
SCOPE = "guardrail"


class Instruments:
    """Counters and histograms mirroring ``/metrics`` (recorded by every guard, served or not)."""

    def __init__(self, meter: metrics.Meter) -> None:
        self.decisions = meter.create_counter(
            "guardrail.decisions",
            unit="{turn}",
            description="Guard decisions, by strongest action and the topic whose rule applied.",
        )
        self.turn_duration = meter.create_histogram(
            "guardrail.turn.duration",
            unit="s",
            description="Wall time of one guarded turn (scoring, actions and audit).",
            explicit_bucket_boundaries_advisory=LATENCY_BUCKETS,
        )
        self.judge_duration = meter.create_histogram(
            "guardrail.judge.call.duration",
            unit="s",
            description="Latency of each judge call, retries included, by scorer stage.",
            explicit_bucket_boundaries_advisory=LATENCY_BUCKETS,
        )
        self.tokens = meter.create_counter(
            "guardrail.judge.tokens",
            unit="{token}",
            description="Tokens used by judge calls, by kind (prompt or completion).",
        )
        self.judge_failures = meter.create_counter(
            "guardrail.judge.failed_calls",
            unit="{call}",
            description="Judge calls that failed for good, by stage.",
        )
        self.turn_errors = meter.create_counter(
            "guardrail.turn.errors",
            unit="{turn}",
            description="Turns that raised instead of returning a decision, by error type.",
        )

    def record(
        self,
        result: GuardResult | None,
        calls: Sequence[JudgeCall],
        seconds: float,
        error: BaseException | None,
    ) -> None:
        self.turn_duration.record(seconds)
        if result is not None:
            decision = result.decision
            self.decisions.add(1, {"action": decision.action, "topic": decision.topic})
        if error is not None:
            self.turn_errors.add(1, {"error.type": type(error).__name__})
        prompt = completion = 0
        for call in calls:
            self.judge_duration.record(call.latency_s, {"stage": call.stage})
            prompt += call.prompt_tokens
            completion += call.completion_tokens
            if not call.ok:
                self.judge_failures.add(1, {"stage": call.stage})
        if prompt:
            self.tokens.add(prompt, {"kind": "prompt"})
        if completion:
            self.tokens.add(completion, {"kind": "completion"})


class Backend:
    """One :class:`Telemetry`'s tracer and instruments."""

    def __init__(self, telemetry: TelemetrySettings) -> None:
        self.telemetry = telemetry
        self.tracer = trace.get_tracer(
            SCOPE, __version__, tracer_provider=telemetry.tracer_provider
        )
        meter = metrics.get_meter(SCOPE, __version__, meter_provider=telemetry.meter_provider)
        self.instruments = Instruments(meter)

    def start(self, *, policy: str, redaction: str, question: str, answer: str) -> Recorder:
        return Recorder(self, policy, redaction, question, answer)


@dataclass(frozen=True)
class Mark:
    """A scoring attempt's start: the clock, and how many of the turn's calls came before."""

    started_ns: int
    calls: list[JudgeCall]
    before: int


@dataclass(frozen=True)
class _Attempt:
    started_ns: int
    ended_ns: int
    calls: list[JudgeCall]
    report: ScoreReport | None
    error: str | None


class Recorder:
    """One turn (a :class:`~guardrail.telemetry.turns.TurnTrace`): its live span, then its
    children and metrics when it ends."""

    def __init__(
        self, backend: Backend, policy: str, redaction: str, question: str, answer: str
    ) -> None:
        self.backend = backend
        self.redaction = redaction
        self.texts = (question, answer)
        self.start_epoch = time.time_ns()
        self.start_perf = time.perf_counter_ns()
        self.span = backend.tracer.start_span(
            "guardrail.turn", start_time=self.start_epoch, attributes={"guardrail.policy": policy}
        )
        self.context = trace.set_span_in_context(self.span)
        self._token = otel_context.attach(self.context)
        self.attempts: list[_Attempt] = []
        self.result: GuardResult | None = None
        self.error: BaseException | None = None

    # -- what the guard reports --------------------------------------------------------------

    def mark(self, calls: list[JudgeCall]) -> Mark:
        return Mark(time.perf_counter_ns(), calls, len(calls))

    def scored(self, mark: Mark, report: ScoreReport | None, error: str | None) -> None:
        calls = mark.calls[mark.before :]
        self.attempts.append(
            _Attempt(mark.started_ns, time.perf_counter_ns(), calls, report, error)
        )

    def done(self, result: GuardResult) -> None:
        self.result = result

    def failed(self, error: BaseException) -> None:
        self.error = error

    # -- the end of the turn -----------------------------------------------------------------

    def _epoch(self, perf_ns: int) -> int:
        return self.start_epoch + (perf_ns - self.start_perf)

    def end(self) -> None:
        ended = time.perf_counter_ns()
        otel_context.detach(self._token)
        calls = [call for attempt in self.attempts for call in attempt.calls]
        seconds = (ended - self.start_perf) / 1e9
        self.backend.instruments.record(self.result, calls, seconds, self.error)
        span = self.span
        if span.is_recording():
            span.set_attributes(self._attributes(calls))
            for number, attempt in enumerate(self.attempts, start=1):
                self._attempt_span(number, attempt)
        if self.error is not None:
            span.record_exception(self.error)
            span.set_status(Status(StatusCode.ERROR, f"{type(self.error).__name__}"))
        span.end(end_time=self._epoch(ended))

    def _attributes(self, calls: list[JudgeCall]) -> dict[str, Any]:
        attrs: dict[str, Any] = {
            "guardrail.attempts": len(self.attempts),
            "guardrail.judge.calls": len(calls),
            "guardrail.judge.failed_calls": sum(1 for c in calls if not c.ok),
            "guardrail.judge.unusable_replies": sum(1 for c in calls if c.reply_unusable),
            "guardrail.usage.prompt_tokens": sum(c.prompt_tokens for c in calls),
            "guardrail.usage.completion_tokens": sum(c.completion_tokens for c in calls),
        }
        result = self.result
        if result is not None:
            decision = result.decision
            attrs.update(
                {
                    "guardrail.audit_id": result.audit_id,
                    "guardrail.topic": decision.topic,
                    "guardrail.topics": [t.label for t in result.topics],
                    "guardrail.threshold": decision.threshold,
                    "guardrail.decision.flagged": decision.flagged,
                    "guardrail.decision.action": decision.action,
                    "guardrail.decision.actions": list(decision.actions),
                    "guardrail.decision.reason": decision.reason,
                }
            )
            if decision.score is not None:
                attrs["guardrail.score"] = decision.score
            if decision.queue is not None:
                attrs["guardrail.decision.queue"] = decision.queue
            if decision.languages is not None:
                attrs["guardrail.question.language"] = decision.languages.question
                attrs["guardrail.answer.language"] = decision.languages.answer
                attrs["guardrail.contexts.languages"] = list(decision.languages.contexts)
                if decision.languages.verifiable is not None:
                    attrs["guardrail.answer.language_verifiable"] = decision.languages.verifiable
            if decision.error is not None:
                attrs["guardrail.decision.error"] = decision.error
            if result.report is not None:
                attrs["guardrail.scorer"] = result.report.method
        if self.backend.telemetry.record_texts:
            attrs.update(self._texts())
        return attrs

    def _texts(self) -> dict[str, str]:
        """The turn's texts as the audit log would keep them (nothing under ``"drop"``)."""
        mode: TextRedaction = "hash" if self.redaction == "hash" else "none"
        if self.redaction not in ("none", "hash"):
            return {}
        question, answer = self.texts
        texts = {"guardrail.question": question, "guardrail.answer": answer}
        if self.result is not None:
            texts["guardrail.final_answer"] = self.result.answer
        return {key: redact_text(text, mode) or "" for key, text in texts.items()}

    def _attempt_span(self, number: int, attempt: _Attempt) -> None:
        tracer = self.backend.tracer
        start = self._epoch(attempt.started_ns)
        attrs: dict[str, Any] = {
            "guardrail.attempt": number,
            "guardrail.judge.calls": len(attempt.calls),
        }
        report = attempt.report
        if report is not None:
            attrs.update(
                {
                    "guardrail.scorer": report.method,
                    "guardrail.score": report.score,
                    "guardrail.flagged": report.flagged,
                    "guardrail.report.status": report.status,
                    "guardrail.factoids": len(report.factoids),
                }
            )
        span = tracer.start_span(
            "guardrail.score", self.context, start_time=start, attributes=attrs
        )
        if attempt.error is not None:
            span.set_status(Status(StatusCode.ERROR, attempt.error))
        parent = trace.set_span_in_context(span)
        stages = report.usage.stages if report is not None else []
        if stages and sum(s.calls for s in stages) == len(attempt.calls):
            cursor, index = start, 0
            for stage in stages:
                length = int(stage.seconds * 1e9)
                calls = attempt.calls[index : index + stage.calls]
                spanned = self._spanned(calls)
                stage_attrs: dict[str, Any] = {
                    "guardrail.stage": stage.stage,
                    "guardrail.judge.calls": stage.calls,
                }
                if len(spanned) < len(calls):
                    stage_attrs["guardrail.judge.calls_without_span"] = len(calls) - len(spanned)
                stage_span = tracer.start_span(
                    f"guardrail.stage.{stage.stage}",
                    parent,
                    start_time=cursor,
                    attributes=stage_attrs,
                )
                if spanned:
                    self._call_spans(trace.set_span_in_context(stage_span), cursor, spanned)
                stage_span.end(end_time=cursor + length)
                cursor, index = cursor + length, index + stage.calls
        else:  # no stage timings (a failed attempt): the calls hang off the attempt
            spanned = self._spanned(attempt.calls)
            if len(spanned) < len(attempt.calls):
                span.set_attribute(
                    "guardrail.judge.calls_without_span", len(attempt.calls) - len(spanned)
                )
            self._call_spans(parent, start, spanned)
        span.end(end_time=self._epoch(attempt.ended_ns))

    def _spanned(self, calls: Sequence[JudgeCall]) -> list[JudgeCall]:
        """The calls that get a span of their own: none without ``judge_spans``; otherwise
        every call that took ``judge_span_min_ms`` or longer, failed, was retried or had a
        parse failure (every call to a model server; an in-process judge's instant calls are
        only counted on their stage span)."""
        telemetry = self.backend.telemetry
        if not telemetry.judge_spans:
            return []
        floor = telemetry.judge_span_min_ms / 1000
        return [
            call
            for call in calls
            if call.latency_s >= floor
            or not call.ok
            or call.attempts != 1
            or call.parse_failure
            or call.error
        ]

    def _call_spans(
        self, parent: otel_context.Context, start: int, calls: Sequence[JudgeCall]
    ) -> None:
        for call in calls:
            span: Span = self.backend.tracer.start_span(
                f"guardrail.judge.{call.stage}",
                parent,
                start_time=start,
                attributes=_call_attributes(call),
            )
            if not call.ok:
                span.set_status(Status(StatusCode.ERROR, call.error or "judge call failed"))
            span.end(end_time=start + int(call.latency_s * 1e9))


def _call_attributes(call: JudgeCall) -> dict[str, Any]:
    """A judge call's attributes; those at their usual value (one attempt, no tokens, not
    cached, succeeded, its reply read as asked) are left out: the SDK's cost of a span grows
    with its attributes, and an offline judge makes dozens of calls per turn."""
    attrs: dict[str, Any] = {"guardrail.stage": call.stage, "guardrail.judge": call.judge}
    if call.prompt_tokens or call.completion_tokens:
        attrs["gen_ai.usage.input_tokens"] = call.prompt_tokens
        attrs["gen_ai.usage.output_tokens"] = call.completion_tokens
    if call.model:
        attrs["gen_ai.response.model"] = call.model
    if call.attempts != 1:
        attrs["guardrail.judge.attempts"] = call.attempts
    if not call.ok:
        attrs["guardrail.judge.ok"] = False
    if call.cached:
        attrs["guardrail.judge.cached"] = True
    if call.parse_failure:
        attrs["guardrail.judge.parse_failure"] = call.parse_failure
    if call.parse_causes:
        attrs["guardrail.judge.parse_causes"] = list(call.parse_causes)
    if call.reply_unusable:
        attrs["guardrail.judge.reply_unusable"] = True
    if call.error:
        attrs["guardrail.judge.error"] = call.error
    return attrs
