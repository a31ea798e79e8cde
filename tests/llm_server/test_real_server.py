"""MetaRAG against a real model server: llama.cpp + Gemma 3 270M on 127.0.0.1.

Gemma 3 270M is a base model: it echoes prompts and rarely answers in format. These tests
check the protocol around it — every protocol runs end to end, the usage recorded is what the
server reported, echoed or garbage replies become recorded parse failures and NOT SURE, a
server that dies mid-turn fails closed with a complete audit record — never its accuracy.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest

from guardrail.audit.chain import verify_log
from guardrail.cli import main
from guardrail.guard import Guard
from guardrail.local_server import MODEL_NAME, RunningServer, llama_server
from guardrail.models import Label
from guardrail.scoring import MetaRAG, MetaRAGConfig

from .conftest import ROOT, Wire, require_llm_server, wired_judge

pytestmark = pytest.mark.llm_server

QUESTION = "Can pregnant women take ibuprofen for back pain?"
ANSWER = "Yes, ibuprofen is safe throughout pregnancy."
CONTEXT = [
    "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
    "generally considered the first choice for pain relief during pregnancy."
]
PROTOCOLS = ["paper", "factoid", "answer"]


def _policy(tmp_path: Path, protocol: str, *, attempts: int = 2) -> Path:
    """The default policy with k = 1, this protocol and few retries (keeps the tests short)."""
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    for old, new in (
        ("  k: 2\n", "  k: 1\n"),
        ("  protocol: paper ", f"  protocol: {protocol} "),
        ("  max_attempts: 4\n", f"  max_attempts: {attempts}\n"),
        ("  timeout_s: 60\n", "  timeout_s: 120\n"),
    ):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / f"policy-{protocol}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _guard(tmp_path: Path, protocol: str, judge, **options) -> Guard:
    return Guard.from_yaml(
        _policy(tmp_path, protocol, **options),
        judge=judge,
        audit_log=tmp_path / "audit.jsonl",
        review_db=tmp_path / "review.sqlite3",
        fallback_log=tmp_path / "fallback.jsonl",
    )


def _expected_calls(protocol: str, factoids: int, k: int = 1) -> int:
    if factoids == 0:
        return 1
    return {
        "paper": 1 + 2 * factoids + 2 * k * factoids,
        "factoid": 1 + 1 + factoids,
        "answer": 3,
    }[protocol]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_guardrail_check_runs_end_to_end(
    protocol: str, llama: RunningServer, api_key: None, capsys: pytest.CaptureFixture[str]
):
    argv = [
        "check", "--judge", f"openai-compatible:{MODEL_NAME}@{llama.url}", "--k", "1",
        "--protocol", protocol, "--question", QUESTION, "--answer", ANSWER,
        "--context", CONTEXT[0], "--json",
        # llama-cpp-python streams no token usage: unstreamed, the server reports it
        "--judge-stream", "off",
    ]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    calls = result["calls"]
    assert all(call["ok"] and call["model"] for call in calls)
    assert len(calls) == _expected_calls(protocol, len(result["factoids"]))
    assert result["usage"]["prompt_tokens"] == sum(call["prompt_tokens"] for call in calls) > 0
    assert 0.0 <= result["score"] <= 1.0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_guard_check_usage_is_what_the_server_reported(
    protocol: str, llama: RunningServer, tmp_path: Path
):
    wire = Wire()
    guard = _guard(tmp_path, protocol, wired_judge(llama.url, wire))

    async def turn():
        async with guard:
            return await guard.acheck(QUESTION, ANSWER, CONTEXT)

    result = asyncio.run(turn())
    report = result.report
    assert report is not None
    # Gemma is a base model: a turn without one parsable verdict is judge_unusable, and the
    # policy's on-error rule decides it; otherwise the score does
    if report.status == "judge_unusable":
        assert (result.decision.error or "").startswith("judge unusable")
        assert result.decision.action != "pass"
    else:
        assert result.decision.error is None
    assert result.decision.topic == "pregnancy" and result.decision.threshold == 0.3
    # one recorded call per HTTP response, and the token counts the server put in them; on a
    # loaded machine an attempt can time out and be retried: every request is an attempt
    assert report.usage.judge_calls == len(wire.usages)
    assert wire.requests == sum(call.attempts for call in report.calls)
    assert report.usage.prompt_tokens == sum(u["prompt_tokens"] for u in wire.usages)
    assert report.usage.completion_tokens == sum(u["completion_tokens"] for u in wire.usages)
    assert report.usage.cached_prompt_tokens is None  # llama.cpp does not report cache hits
    # every budget was honoured by the server
    assert all(call.completion_tokens <= 1024 for call in report.calls)
    (record,) = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert record["audit_id"] == result.audit_id
    assert len(record["judge_calls"]) == report.usage.judge_calls


def test_echoed_or_garbage_replies_are_recorded_parse_failures_and_not_sure(
    llama: RunningServer,
):
    wire = Wire()
    # plain text: a base model's free replies are what the parsers must survive (with a
    # structured-output constraint the server makes every reply parse)
    judge = wired_judge(llama.url, wire, structured_output="off")
    scorer = MetaRAG(judge, config=MetaRAGConfig(k=1), localizer=None)

    async def score():
        try:
            return await scorer.score(QUESTION, ANSWER, CONTEXT)
        finally:
            await scorer.verifiers[0].aclose()  # type: ignore[attr-defined]

    report = asyncio.run(score())
    failures = [call for call in report.calls if call.parse_failure]
    assert failures, "the base model answered every call in format: nothing was exercised"
    assert all(call.ok for call in report.calls)  # a bad reply is not a failed call
    verdicts = [v for f in report.factoids for var in f.variants for v in var.verdicts]
    unparsed = [v for v in verdicts if not v.parsed]
    assert all(v.label is Label.NOT_SURE for v in unparsed)
    assert report.usage.parse_failures == len(failures)


def test_server_killed_mid_turn_fails_closed_with_a_complete_audit_record(tmp_path: Path):
    require_llm_server()
    with llama_server(threads=2, ctx=4096) as server:
        wire = Wire()

        async def kill_on_second_request(request: httpx2.Request) -> None:
            if wire.usages and server.process.poll() is None:  # decompose answered
                server.process.kill()
                server.process.wait()

        judge = wired_judge(server.url, wire, request=[kill_on_second_request])
        guard = _guard(tmp_path, "answer", judge, attempts=2)

        async def turn():
            async with guard:
                return await guard.acheck(QUESTION, ANSWER, CONTEXT)

        result = asyncio.run(turn())
    decision = result.decision
    assert decision.topic == "pregnancy"
    assert decision.score is None and decision.error and "failed" in decision.error
    assert decision.action == "escalate" and not result.answer.startswith("Yes, ibuprofen")
    assert verify_log(tmp_path / "audit.jsonl").ok
    (record,) = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    calls = record["judge_calls"]
    assert calls[0]["stage"] == "decompose" and calls[0]["ok"]
    assert any(not call["ok"] and call["attempts"] == 2 for call in calls)
    assert record["decision"]["action"] == "escalate"
