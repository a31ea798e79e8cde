"""The proxy on the serving core: the deadline, the work budget and the answer limit of
``serve`` apply behind it, bodies are read by the hardened reader, and every error it answers
is in the OpenAI shape the ``openai`` SDK reads."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from guardrail.actions.escalate import Escalator
from guardrail.audit.log import AuditLog
from guardrail.guard import Guard
from guardrail.judges.base import JudgeRequest
from guardrail.policy import parse_policy
from guardrail.proxy import Upstream, create_proxy_app
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.queues import SQLiteQueue
from guardrail.queues.jsonl import JSONLSink
from guardrail.server.testing import serve_in_thread
from guardrail.serving.limits import RequestLimits
from guardrail.testing import ScriptedJudge
from tests.proxy.conftest import proxy_in_thread
from tests.streaming.conftest import POLICY_YAML, PREGNANCY_CTX, PREGNANCY_Q, SAFE, records


async def _never(request: JudgeRequest) -> str:
    await asyncio.Event().wait()  # a judge that never answers
    return ""


@contextlib.contextmanager
def _proxy(
    tmp_path: Path, *, judge: Any = None, api_key: str | None = None, **limits: Any
) -> Iterator[tuple[str, Path]]:
    guard = Guard(
        parse_policy(POLICY_YAML),
        judge=judge,
        escalator=Escalator(
            default=SQLiteQueue(tmp_path / "review.sqlite3"),
            fallback=JSONLSink(tmp_path / "fallback.jsonl"),
        ),
        audit=AuditLog(tmp_path / "audit.jsonl"),
    )
    with proxy_in_thread(
        tmp_path,
        ScriptedReply(SAFE.strip()),
        guard=guard,
        api_key=api_key,
        limits=RequestLimits(**limits),
    ) as running:
        yield running


MESSAGES: Any = [
    {"role": "system", "content": f"<context>{PREGNANCY_CTX[0]}</context>"},
    {"role": "user", "content": PREGNANCY_Q},
]


@pytest.mark.parametrize("stream", [False, True])
def test_a_judge_that_never_answers_ends_in_on_error_within_the_deadline(tmp_path, stream):
    """--max-check-seconds 2: the turn ends by the sensitive topic's on_error (escalate)
    within the deadline (plus slack for a loaded machine), and it is recorded."""
    with _proxy(tmp_path, judge=ScriptedJudge(_never), max_check_seconds=2) as (url, audit):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0, timeout=60)
        started = time.monotonic()
        if stream:
            with client.chat.completions.create(
                model="m", messages=MESSAGES, stream=True
            ) as chunks:
                last = [c for c in chunks][-1]
            summary = last.model_extra["guardrail"]  # type: ignore[index]
        else:
            reply = client.chat.completions.create(model="m", messages=MESSAGES)
            summary = reply.model_extra["guardrail"]  # type: ignore[index]
        took = time.monotonic() - started
    assert summary["decision"] == "escalate" and summary["score"] is None
    assert "deadline" in (summary["error"] or "")
    assert took < 2 + 8, f"took {took:.1f} s"
    [record] = records(audit)
    assert record["decision"]["action"] == "escalate"
    assert "deadline" in (record["decision"]["error"] or "")


def test_deeply_nested_body_is_a_4xx_in_the_openai_shape(tmp_path):
    """100,000 levels of nesting are refused before parsing, as an OpenAI error object."""
    body = b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with _proxy(tmp_path) as (url, _audit):
        r = httpx.post(
            f"{url}/v1/chat/completions",
            content=body,
            headers={"content-type": "application/json"},
            timeout=30,
        )
    assert 400 <= r.status_code < 500
    error = r.json()["error"]
    assert set(error) >= {"message", "type", "code"} and error["code"] == r.status_code


def test_401_and_413_reach_the_sdk_with_their_message(tmp_path):
    """The gate's refusals are OpenAI error objects: the SDK shows the message, not just the
    status."""
    with _proxy(tmp_path, api_key="right-key", max_body_bytes=2_000) as (url, _audit):
        wrong = openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as denied:
            wrong.chat.completions.create(model="m", messages=MESSAGES)
        right = openai.OpenAI(base_url=f"{url}/v1", api_key="right-key", max_retries=0)
        big: Any = [{"role": "user", "content": "x" * 5_000}]
        with pytest.raises(openai.APIStatusError) as too_large:
            right.chat.completions.create(model="m", messages=big)
    assert "missing or invalid API key" in str(denied.value)
    assert too_large.value.status_code == 413
    assert "larger than 2000 bytes" in str(too_large.value)


def test_the_work_budget_applies_behind_the_proxy(tmp_path):
    """An answer whose scoring work is over --max-work is not scored: the policy's on_error
    decides (the sensitive topic escalates), and the reason names the limit."""
    with _proxy(tmp_path, max_work=10) as (url, audit):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=MESSAGES)
    summary = reply.model_extra["guardrail"]  # type: ignore[index]
    assert summary["decision"] == "escalate" and summary["score"] is None
    assert "--max-work" in summary["reason"]
    [record] = records(audit)
    assert record["decision"]["action"] == "escalate"


def test_an_answer_over_max_answer_chars_is_cut_scored_and_says_so(tmp_path):
    """--max-answer-chars behind the proxy: the upstream's answer is cut, the cut text scored,
    and the reason says it was cut."""
    with _proxy(tmp_path, max_answer_chars=20) as (url, audit):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=MESSAGES)
    summary = reply.model_extra["guardrail"]  # type: ignore[index]
    assert "cut at 20" in summary["reason"]
    [record] = records(audit)
    assert len(record["answer"]) == 20


def _proxy_replying(tmp_path: Path, reply: ScriptedReply) -> Any:
    return proxy_in_thread(tmp_path, reply)


def test_streamed_reasoning_is_withheld_and_a_refusal_is_guarded(tmp_path):
    """A reasoning delta never reaches the client; a refusal delta is text the user reads,
    so it goes through the guard like content (and is in the record)."""
    reply = ScriptedReply(
        "",
        chunks=[],
        extra_deltas=[
            {"reasoning_content": "SECRET-THOUGHTS about the patient"},
            {"refusal": "I cannot answer that from the sources."},
        ],
    )
    with _proxy_replying(tmp_path, reply) as (url, audit):
        r = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True},
            timeout=60,
        )
    assert r.status_code == 200
    assert "SECRET-THOUGHTS" not in r.text
    assert "I cannot answer that from the sources." in r.text
    [record] = records(audit)
    assert "I cannot answer that from the sources." in record["answer"]
    assert "SECRET-THOUGHTS" not in json.dumps(record)


def test_a_non_streamed_refusal_is_scored_and_reasoning_withheld(tmp_path):
    """content None with a refusal: the refusal is the answer the guard checks; the
    message's reasoning field is removed."""
    reply = ScriptedReply(
        "",
        extra_message={
            "refusal": "I cannot answer that from the sources.",
            "reasoning_content": "SECRET-THOUGHTS",
        },
    )
    with _proxy_replying(tmp_path, reply) as (url, audit):
        r = httpx.post(
            f"{url}/v1/chat/completions", json={"model": "m", "messages": MESSAGES}, timeout=60
        )
    body = r.json()
    message = body["choices"][0]["message"]
    assert "reasoning_content" not in message and "SECRET-THOUGHTS" not in r.text
    assert body["guardrail"]["audit_id"]
    [record] = records(audit)
    assert record["answer"] == "I cannot answer that from the sources."


def test_an_endless_stream_is_cut_at_max_answer_chars_and_recorded(tmp_path):
    """A streamed answer longer than --max-answer-chars: the proxy stops reading the upstream
    at the limit, scores what arrived and says so; the record holds at most the limit."""
    endless = ScriptedReply("", chunks=["word " * 20] * 500)  # 50,000 characters
    audit = tmp_path / "audit.jsonl"
    guard = Guard(parse_policy(POLICY_YAML), audit=AuditLog(audit))
    with serve_in_thread(scripted_upstream(lambda body: endless)) as upstream_url:  # type: ignore[arg-type]
        app = create_proxy_app(
            guard=guard,
            upstream=Upstream(f"{upstream_url}/v1"),
            limits=RequestLimits(max_answer_chars=300),
        )
        with serve_in_thread(app) as url:  # type: ignore[arg-type]
            client = openai.OpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0)
            with client.chat.completions.create(
                model="m", messages=MESSAGES, stream=True
            ) as chunks:
                events = list(chunks)
    summary = events[-1].model_extra["guardrail"]  # type: ignore[index]
    assert "cut at 300 characters" in summary["reason"]
    [record] = records(audit)
    assert len(record["answer"]) <= 300


@pytest.mark.parametrize("n", [2.0, "2", True, 0])
def test_n_must_be_a_positive_integer(tmp_path, n):
    """ "n": 2.0 or "2" with a stream would merge two choices into one: refused with 400."""
    with _proxy(tmp_path) as (url, audit):
        r = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True, "n": n},
            timeout=30,
        )
    assert r.status_code == 400
    assert "'n' must be a positive integer" in r.json()["error"]["message"]
    assert records(audit) == []
