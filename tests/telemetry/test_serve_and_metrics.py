"""Trace context through ``serve`` (W3C traceparent on POST /v1/check), the metrics, and what
importing costs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
from opentelemetry.trace import format_span_id, format_trace_id

from guardrail.server import create_app
from guardrail.server.testing import serve_in_thread

from .conftest import ANSWER, CONTEXTS, QUESTION, Otel, make_guard

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


def test_a_traceparent_header_parents_the_turn_span_in_serve(tmp_path, queue, otel: Otel):
    guard = make_guard(tmp_path, queue, otel.telemetry(judge_span_min_ms=0))
    app = create_app(checker=guard, queue=queue, api_key=None, reviewer_tokens={}, review_ui=False)
    body = {"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS}
    with guard, serve_in_thread(app) as base:
        traced = httpx.post(
            f"{base}/v1/check", json=body, headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
        )
        untraced = httpx.post(f"{base}/v1/check", json=body)
    assert traced.status_code == untraced.status_code == 200
    first, second = otel.spans("guardrail.turn")
    assert format_trace_id(first.context.trace_id) == TRACE_ID
    assert first.parent is not None and format_span_id(first.parent.span_id) == PARENT_ID
    assert first.parent.is_remote
    assert (first.attributes or {})["guardrail.audit_id"] == traced.json()["audit_id"]
    # the same request without the header starts a trace of its own
    assert second.parent is None and format_trace_id(second.context.trace_id) != TRACE_ID
    # the attempt and judge spans belong to the caller's trace too
    assert {format_trace_id(s.context.trace_id) for s in otel.spans("guardrail.judge")} == {
        TRACE_ID,
        format_trace_id(second.context.trace_id),
    }


def test_metrics_mirror_the_services_counters(tmp_path, queue, otel: Otel):
    with make_guard(tmp_path, queue, otel.telemetry()) as guard:
        results = [guard.check(QUESTION, ANSWER, CONTEXTS) for _ in range(2)]
        general = guard.check("When does the office open?", "It opens at eight.", ["Opens at 8."])
    calls = [c for r in [*results, general] for c in (r.report.calls if r.report else [])]
    decisions = {
        (a["action"], a["topic"]): p.value  # type: ignore[attr-defined]
        for a, p in otel.points("guardrail.decisions")
    }
    assert decisions == {
        ("escalate", "pregnancy"): 2,
        (general.decision.action, "general"): 1,
    }
    [(_, turns)] = otel.points("guardrail.turn.duration")
    assert turns.count == 3  # type: ignore[attr-defined]
    latency = {a["stage"]: p.count for a, p in otel.points("guardrail.judge.call.duration")}  # type: ignore[attr-defined]
    assert sum(latency.values()) == len(calls)
    assert set(latency) == {c.stage for c in calls}
    tokens = {a["kind"]: p.value for a, p in otel.points("guardrail.judge.tokens")}  # type: ignore[attr-defined]
    assert tokens == {
        "prompt": sum(c.prompt_tokens for c in calls),
        "completion": sum(c.completion_tokens for c in calls),
    }
    assert otel.points("guardrail.judge.failed_calls") == []


def _modules_after(code: str) -> set[str]:
    report = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\n{report}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return {
        m.partition(".")[0] + ("." + m.split(".")[1] if m.count(".") else "")
        for m in json.loads(proc.stdout.splitlines()[-1])
    }


GUARDED_TURN = """
import sys
from guardrail.guard import Guard
from guardrail.judges import ScriptedJudge
from guardrail.policy import parse_policy
assert "opentelemetry" not in sys.modules, "importing the guard imported OpenTelemetry"
policy = parse_policy('''
name: p
scorer: {judge: local}
topics: [{name: general, threshold: 0.5, examples: ["hello there"]}]
classifier: {default_topic: general}
''')
with Guard(policy, judge=ScriptedJudge(lambda req: "[]")) as guard:
    guard.check("How do I book a room?", "In the calendar.", ["Rooms are booked in the calendar."])
"""


def test_the_api_loads_on_the_first_turn_and_the_sdk_never():
    """No SDK configured: the turn goes to the API's no-op providers; nothing else loads."""
    loaded = _modules_after(GUARDED_TURN)
    assert "opentelemetry.trace" in loaded and "opentelemetry.metrics" in loaded
    assert "opentelemetry.sdk" not in loaded
    for framework in ("langchain_core", "llama_index", "starlette"):
        assert framework not in {m.partition(".")[0] for m in loaded}
