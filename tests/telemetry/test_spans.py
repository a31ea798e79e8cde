"""One guarded turn as OpenTelemetry sees it: the turn span, its attempts, stages and calls."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from guardrail.audit.record import text_hash
from guardrail.exceptions import JudgeServerError
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.policy import parse_policy
from guardrail.telemetry import Telemetry

from .conftest import ANSWER, CONTEXTS, POLICY, POLICY_REGEN, QUESTION, Otel, handler, make_guard


def audit_turns(tmp_path: Path) -> list[dict[str, object]]:
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "turn"]


def test_an_escalated_turn_is_one_span_with_its_decision(tmp_path, queue, otel: Otel):
    with make_guard(tmp_path, queue, otel.telemetry()) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.decision.action == "escalate"
    [turn] = otel.spans("guardrail.turn")
    [record] = audit_turns(tmp_path)
    calls = record["judge_calls"]
    attrs = dict(turn.attributes or {})
    assert turn.kind is SpanKind.INTERNAL
    assert attrs["guardrail.audit_id"] == result.audit_id == record["audit_id"]
    assert attrs["guardrail.policy"] == "traced"
    assert attrs["guardrail.topic"] == "pregnancy"
    assert attrs["guardrail.score"] == result.decision.score == record["score"]
    assert attrs["guardrail.decision.flagged"] is True
    assert attrs["guardrail.decision.action"] == "escalate"
    assert list(attrs["guardrail.decision.actions"]) == result.decision.actions  # type: ignore[arg-type]
    assert "escalate" in result.decision.actions
    assert attrs["guardrail.decision.queue"] == "clinical-review"
    assert attrs["guardrail.judge.calls"] == len(calls) > 0
    assert attrs["guardrail.usage.prompt_tokens"] == sum(c["prompt_tokens"] for c in calls) > 0
    assert attrs["guardrail.usage.completion_tokens"] == sum(c["completion_tokens"] for c in calls)
    assert queue.get(result.audit_id).case.contexts == CONTEXTS  # the escalation landed too


def test_children_are_the_attempt_its_stages_and_every_judge_call(tmp_path, queue, otel: Otel):
    with make_guard(tmp_path, queue, otel.telemetry(judge_span_min_ms=0)) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.report is not None
    [turn] = otel.spans("guardrail.turn")
    [attempt] = otel.spans("guardrail.score")
    stages = otel.spans("guardrail.stage")
    judge = otel.spans("guardrail.judge")
    assert attempt.parent is not None and attempt.parent.span_id == turn.context.span_id
    assert attempt.context.trace_id == turn.context.trace_id
    timings = result.report.usage.stages
    assert [s.name for s in stages] == [f"guardrail.stage.{t.stage}" for t in timings]
    for span, timing in zip(stages, timings, strict=True):
        assert span.parent is not None and span.parent.span_id == attempt.context.span_id
        assert span.end_time - span.start_time == int(timing.seconds * 1e9)  # type: ignore[operator]
        children = [j for j in judge if j.parent and j.parent.span_id == span.context.span_id]
        assert len(children) == timing.calls
    # one span per judge call, with that call's latency, stage and tokens
    calls = result.report.calls
    assert len(judge) == len(calls)
    assert sorted((j.attributes or {})["guardrail.stage"] for j in judge) == sorted(
        c.stage for c in calls
    )
    assert sum((j.attributes or {}).get("gen_ai.usage.input_tokens", 0) for j in judge) == sum(  # type: ignore[misc]
        c.prompt_tokens for c in calls
    )
    durations = sorted(j.end_time - j.start_time for j in judge)  # type: ignore[operator]
    assert durations == sorted(int(c.latency_s * 1e9) for c in calls)
    # every child lies within the turn
    for span in [attempt, *stages, *judge]:
        assert turn.start_time <= span.start_time <= span.end_time  # type: ignore[operator]
    assert attempt.end_time <= turn.end_time  # type: ignore[operator]


def test_the_turn_span_is_a_child_of_the_callers_span(tmp_path, queue, otel: Otel):
    """The caller's context crosses into the guard's own event-loop thread (check) and into
    an awaited acheck alike."""
    tracer = otel.tracer_provider.get_tracer("caller")
    with make_guard(tmp_path, queue, otel.telemetry()) as guard:
        with tracer.start_as_current_span("handle request") as outer:
            guard.check(QUESTION, ANSWER, CONTEXTS)

        async def inside() -> None:
            with tracer.start_as_current_span("async request"):
                await guard.acheck(QUESTION, ANSWER, CONTEXTS)

        asyncio.run(inside())
    first, second = otel.spans("guardrail.turn")
    [async_outer] = otel.spans("async request")
    assert first.parent is not None and first.parent.span_id == outer.get_span_context().span_id
    assert first.context.trace_id == outer.get_span_context().trace_id
    assert second.parent is not None and second.parent.span_id == async_outer.context.span_id


def test_instant_calls_are_counted_on_their_stage_and_slow_or_failed_ones_get_spans(
    tmp_path, queue, otel: Otel
):
    """A call that took less than ``judge_span_min_ms`` and succeeded at once (an in-process
    judge's) has no span of its own; its stage span counts it. Slow calls (every model
    server's) and failed ones keep theirs. The floor here is far above what an instant call
    takes on a loaded machine and far below the slow calls' sleep, so the split cannot
    depend on the machine's load (the default floor is one millisecond)."""
    slow_stage = "verify"

    def timed(req: JudgeRequest) -> str:
        if req.task == slow_stage:
            time.sleep(0.12)
        return handler(req)

    telemetry = otel.telemetry(judge_span_min_ms=50)
    with make_guard(tmp_path, queue, telemetry, judge=ScriptedJudge(timed)) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.report is not None
    calls = result.report.calls
    judge = otel.spans("guardrail.judge")
    slow = [c for c in calls if c.stage == slow_stage]
    assert slow and len(judge) == len(slow)
    assert {(j.attributes or {})["guardrail.stage"] for j in judge} == {slow_stage}
    counted = {
        (s.attributes or {})["guardrail.stage"]: (s.attributes or {}).get(
            "guardrail.judge.calls_without_span", 0
        )
        for s in otel.spans("guardrail.stage")
    }
    assert counted[slow_stage] == 0
    assert sum(counted.values()) == len(calls) - len(slow)
    with pytest.raises(ValueError, match="judge_span_min_ms"):
        otel.telemetry(judge_span_min_ms=-1)
    assert inspect.signature(Telemetry).parameters["judge_span_min_ms"].default == 1.0


def test_texts_stay_off_spans_by_default(tmp_path, queue, otel: Otel):
    with make_guard(tmp_path, queue, otel.telemetry(judge_span_min_ms=0)) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    exported = json.dumps([json.loads(s.to_json()) for s in otel.spans()])
    assert otel.spans("guardrail.judge")  # spans were exported
    for text in (QUESTION, ANSWER, result.answer, *CONTEXTS, "ibuprofen"):
        assert text not in exported


@pytest.mark.parametrize("redaction", ["none", "hash", "drop"])
def test_texts_follow_the_audit_redaction_when_asked_for(tmp_path, queue, otel, redaction):
    telemetry = otel.telemetry(record_texts=True)
    with make_guard(tmp_path, queue, telemetry, redaction=redaction) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    [turn] = otel.spans("guardrail.turn")
    attrs = dict(turn.attributes or {})
    texts = {k: v for k, v in attrs.items() if k.endswith(("question", "answer"))}
    if redaction == "drop":
        assert texts == {}
        return
    expected = {
        "guardrail.question": QUESTION,
        "guardrail.answer": ANSWER,
        "guardrail.final_answer": result.answer,
    }
    if redaction == "hash":
        expected = {k: text_hash(v) for k, v in expected.items()}
    assert texts == expected
    [record] = audit_turns(tmp_path)
    assert texts["guardrail.question"] == record["question"]  # the same as the audit keeps


def test_a_regenerated_turn_has_one_score_span_per_attempt(tmp_path, queue, otel: Otel):
    with make_guard(tmp_path, queue, otel.telemetry(), policy=POLICY_REGEN) as guard:
        result = guard.check(
            QUESTION, ANSWER, CONTEXTS, regenerate=lambda _: (CONTEXTS[1], CONTEXTS)
        )
    assert result.attempts == 2
    attempts = otel.spans("guardrail.score")
    assert [(s.attributes or {})["guardrail.attempt"] for s in attempts] == [1, 2]
    [record] = audit_turns(tmp_path)
    per_attempt = [(s.attributes or {})["guardrail.judge.calls"] for s in attempts]
    assert sum(per_attempt) == len(record["judge_calls"])  # type: ignore[arg-type]
    assert all(n > 0 for n in per_attempt)  # type: ignore[operator]
    [turn] = otel.spans("guardrail.turn")
    assert (turn.attributes or {})["guardrail.attempts"] == 2
    assert attempts[0].end_time <= attempts[1].start_time  # type: ignore[operator]


def test_a_judge_outage_marks_the_attempt_and_its_calls_as_errors(tmp_path, queue, otel: Otel):
    def down(req: JudgeRequest) -> str:
        if req.task == "decompose":
            return handler(req)
        raise JudgeServerError("judge down", status_code=503)

    judge = ScriptedJudge(down)
    with make_guard(tmp_path, queue, otel.telemetry(), judge=judge) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.decision.error  # failed closed
    [attempt] = otel.spans("guardrail.score")
    assert attempt.status.status_code is StatusCode.ERROR
    failed = [j for j in otel.spans("guardrail.judge") if j.status.status_code is StatusCode.ERROR]
    assert failed and all((j.attributes or {})["guardrail.judge.ok"] is False for j in failed)
    [turn] = otel.spans("guardrail.turn")
    assert (turn.attributes or {})["guardrail.judge.failed_calls"] == len(failed)
    assert "guardrail.score" not in (turn.attributes or {})  # no score when scoring failed


def test_unusable_replies_carry_their_causes(tmp_path, queue, otel: Otel):
    """A verify reply with nothing in it is a missing signal: its call span names the causes
    and the turn counts it."""

    def mute(req: JudgeRequest) -> str:
        return "" if req.task == "verify" else handler(req)

    with make_guard(tmp_path, queue, otel.telemetry(), judge=ScriptedJudge(mute)) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.report is not None
    unusable = [c for c in result.report.calls if c.reply_unusable]
    assert unusable and all(c.stage == "verify" for c in unusable)
    spans = [
        j.attributes or {}
        for j in otel.spans("guardrail.judge")
        if (j.attributes or {}).get("guardrail.judge.reply_unusable")
    ]
    assert len(spans) == len(unusable)
    assert all("empty" in attrs["guardrail.judge.parse_causes"] for attrs in spans)
    [turn] = otel.spans("guardrail.turn")
    assert (turn.attributes or {})["guardrail.judge.unusable_replies"] == len(unusable)
    # no verdict is not a pass: the turn falls back to the topic's on-error decision
    assert result.decision.error and result.decision.action == "escalate"


def test_a_crashed_turn_ends_its_span_with_the_exception(tmp_path, queue, otel: Otel):
    class Broken:
        def classify(self, *args: object, **kwargs: object) -> object:
            raise RuntimeError("classifier bug")

    # (a scorer's bug is decided by on_error; a crash outside scoring still ends the turn)
    guard = Guard(parse_policy(POLICY), classifier=Broken(), telemetry=otel.telemetry())  # type: ignore[arg-type]
    with guard, pytest.raises(RuntimeError):
        guard.check(QUESTION, ANSWER, CONTEXTS)
    [turn] = otel.spans("guardrail.turn")
    assert turn.status.status_code is StatusCode.ERROR
    assert [e.name for e in turn.events] == ["exception"]
    [(attrs, point)] = otel.points("guardrail.turn.errors")
    assert attrs == {"error.type": "RuntimeError"} and point.value == 1  # type: ignore[attr-defined]


class _BrokenProvider:
    """A tracer provider whose spans cannot start or whose recording fails."""

    def __init__(self, where: str) -> None:
        self.where = where

    def get_tracer(self, *args: object, **kwargs: object) -> object:
        where = self.where

        class Tracer:
            def start_span(self, *args: object, **kwargs: object) -> object:
                if where == "start":
                    raise RuntimeError("exporter misconfigured")
                from opentelemetry.trace import NonRecordingSpan, SpanContext

                class Span(NonRecordingSpan):
                    def end(self, end_time: int | None = None) -> None:
                        raise RuntimeError("exporter crashed")

                return Span(SpanContext(0, 0, False))

        return Tracer()


@pytest.mark.parametrize("where", ["start", "end"])
def test_telemetry_failures_never_cost_a_turn(tmp_path, queue, otel: Otel, where, caplog):
    telemetry = Telemetry(
        tracer_provider=_BrokenProvider(where), meter_provider=otel.meter_provider
    )
    with make_guard(tmp_path, queue, telemetry) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    assert result.decision.action == "escalate"
    assert [r["audit_id"] for r in audit_turns(tmp_path)] == [result.audit_id]
    assert "guardrail telemetry" in caplog.text
