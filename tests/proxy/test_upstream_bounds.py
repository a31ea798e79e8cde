"""Bounds on what the upstream sends: a stream that never ends, or ends after a flood of tiny
chunks, is closed at ``--max-stream-seconds`` / ``--max-stream-chunks``; the turn is cut,
scored on what arrived, recorded, and the policy decides, whatever the topic's stream mode.

Each test runs a scripted upstream and the proxy on 127.0.0.1 (in-process servers), the
``openai`` SDK or httpx as the client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from guardrail.exceptions import ConfigError
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.server.testing import serve_in_thread
from guardrail.serving.limits import RequestLimits, UpstreamLimits
from tests.proxy.conftest import proxy_in_thread, run_proxy, sse_payloads
from tests.streaming.conftest import (
    GENERAL_CTX,
    GENERAL_Q,
    PREGNANCY_CTX,
    PREGNANCY_Q,
    records,
)

#: One question per stream mode of the test policy (pregnancy: hold, general: release,
#: tax: buffer).
MODES: dict[str, tuple[str, list[str]]] = {
    "hold": (PREGNANCY_Q, PREGNANCY_CTX),
    "release": (GENERAL_Q, GENERAL_CTX),
    "buffer": ("How is income tax on savings paid?", ["Tax on savings is paid yearly."]),
}


def _messages(mode: str) -> list[dict[str, Any]]:
    question, contexts = MODES[mode]
    system = "".join(f"<context>{c}</context>" for c in contexts)
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def _proxy(tmp_path: Path, reply: ScriptedReply, **bounds: Any) -> Any:
    return proxy_in_thread(tmp_path, reply, upstream_limits=UpstreamLimits(**bounds))


def _stream(url: str, mode: str) -> tuple[str, dict[str, Any]]:
    """The text a client of the stream shows, and the ``guardrail`` summary of its end."""
    with httpx.stream(
        "POST",
        f"{url}/v1/chat/completions",
        json={"model": "m", "messages": _messages(mode), "stream": True},
        timeout=120,
    ) as r:
        assert r.status_code == 200
        raw = b"".join(r.iter_bytes())
    payloads = sse_payloads(raw)
    assert payloads[-1] == "[DONE]", payloads[-3:]
    events = [json.loads(p) for p in payloads[:-1]]
    shown = "".join(
        c["delta"].get("content") or ""
        for e in events
        for c in e.get("choices", [])
        if isinstance(c.get("delta"), dict)
    )
    return shown, events[-1]["guardrail"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_endless_stream_is_closed_at_max_stream_seconds(tmp_path, mode):
    """An upstream that streams a word every 10 ms forever: after --max-stream-seconds the
    proxy closes it, scores what arrived, records it, and shows only what the guard let
    through; the reason names the limit."""
    endless = ScriptedReply("", chunks=["word "], endless=True, pause_s=0.01)
    with _proxy(tmp_path, endless, max_stream_seconds=1) as (url, audit):
        shown, summary = _stream(url, mode)
        [record] = records(audit)
    assert "--max-stream-seconds" in summary["reason"], summary["reason"]
    assert record["audit_id"] == summary["audit_id"]
    assert record["answer"].startswith("word ") and set(record["answer"].split()) == {"word"}
    assert shown == record["final_answer"]  # nothing reached the client that the guard did not


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_flood_of_tiny_chunks_is_closed_at_max_stream_chunks(tmp_path, mode):
    """100,000 one-character chunks without punctuation: the proxy stops reading at
    --max-stream-chunks (every upstream event counts), the turn is scored on what arrived and
    recorded; the client sees only what the guard let through."""
    flood = ScriptedReply("", chunks=["x"] * 100_000)
    with _proxy(tmp_path, flood, max_stream_chunks=500) as (url, audit):
        shown, summary = _stream(url, mode)
        [record] = records(audit)
    assert "--max-stream-chunks" in summary["reason"], summary["reason"]
    assert 0 < len(record["answer"]) <= 500
    assert shown == record["final_answer"]


def test_the_stream_bounds_are_flags_of_the_proxy_command(tmp_path):
    """``guardrail proxy --max-stream-chunks N`` (a real process) applies the bound."""
    flood = ScriptedReply("", chunks=["y"] * 5_000)
    upstream_app = scripted_upstream(lambda body: flood)
    with (
        serve_in_thread(upstream_app) as upstream_url,  # type: ignore[arg-type]
        run_proxy(tmp_path, f"{upstream_url}/v1", "--max-stream-chunks", "100") as proxy,
    ):
        _shown, summary = _stream(proxy.url, "release")
        record = proxy.record(summary["audit_id"])
    assert "--max-stream-chunks" in summary["reason"]
    assert 0 < len(record["answer"]) <= 100


def test_the_stream_bounds_are_validated():
    """Out-of-range bounds are refused when the limits are built (one line naming them)."""
    with pytest.raises(ConfigError):
        UpstreamLimits(max_stream_seconds=0)
    with pytest.raises(ConfigError):
        UpstreamLimits(max_stream_chunks=0)


#: One "sentence" of 200 claims joined by "; ", against a 100 KB context: over the default
#: work budget (see the work estimate).
GAMED = "; ".join(f"The office number {i} is open on day {i}" for i in range(200)) + "."
BIG_CONTEXT = ("The office number 7 is open on day 3. " * 2_700)[:100_000]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_streamed_answer_over_the_work_budget_is_not_scored(tmp_path, mode):
    """Streamed or not, an answer whose scoring work is over --max-work is not scored: the
    policy's on_error rule decides, the reason names the limit, and the turn is recorded."""
    question, _contexts = MODES[mode]
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": question}],
        "stream": True,
        "guardrail": {"contexts": [BIG_CONTEXT]},
    }
    with proxy_in_thread(tmp_path, ScriptedReply(GAMED)) as (url, audit):
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=120) as r:
            raw = b"".join(r.iter_bytes())
        [record] = records(audit)
    payloads = sse_payloads(raw)
    assert payloads[-1] == "[DONE]"
    summary = json.loads(payloads[-2])["guardrail"]
    assert "--max-work" in (summary["error"] or summary["reason"]), summary
    assert summary["score"] is None
    assert record["audit_id"] == summary["audit_id"]


def test_a_cut_answer_over_the_work_budget_says_both(tmp_path):
    """Not streamed: an answer cut at --max-answer-chars and then over --max-work is not
    scored, and its reason names both (the cut is not lost)."""
    limits = RequestLimits(max_answer_chars=50, max_work=10)
    with proxy_in_thread(tmp_path, ScriptedReply("word " * 1_000), limits=limits) as (url, audit):
        r = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": _messages("release")},
            timeout=60,
        )
        [record] = records(audit)
    summary = r.json()["guardrail"]
    assert "cut at 50 of 5000 characters" in summary["reason"], summary["reason"]
    assert "--max-work" in summary["reason"]
    assert len(record["answer"]) == 50
