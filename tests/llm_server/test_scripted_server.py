"""The LLM path fails safe against a scripted OpenAI-compatible server on 127.0.0.1.

The server is real (HTTP on the loopback interface, the official ``openai`` SDK as the
client); only its replies are scripted: the empty, echoed, placeholder and malformed replies
small models really give, and calls that run away. No model is needed, so these run
everywhere.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from guardrail.evaluation.datasets import EvalRow
from guardrail.evaluation.runner import run_rows
from guardrail.exceptions import ScoringError
from guardrail.guard import Guard
from guardrail.judges.openai import OpenAIJudge
from guardrail.judges.runner import RetryPolicy
from guardrail.scoring import MetaRAG, MetaRAGConfig

from .conftest import ROOT
from .scripted import ScriptedServer, scripted_server

QUESTION = "Can pregnant women take ibuprofen for back pain?"
ANSWER = "Yes, ibuprofen is safe throughout pregnancy."
CONTEXT = [
    "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
    "generally considered the first choice for pain relief during pregnancy."
]


def _prompt(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


#: Each script answers every task the way a broken or weak model does.
PATHOLOGICAL = {
    "empty": lambda task, body: "",
    "echoed fence": lambda task, body: "[BEGIN DATA: inputText]",
    "echoed prompt": lambda task, body: _prompt(body),
    "placeholders": lambda task, body: {
        "decompose": '["...", "..."]',
        "synonym": '["...", "..."]',
        "antonym": '["...", "..."]',
    }.get(task, "YES, NO, or NOT SURE"),
    "malformed": lambda task, body: {
        "decompose": '[{"a": "x"}]',
        "synonym": '{"1": {"synonyms": ["..."]',
        "antonym": "[",
    }.get(task, '{"verdict": '),
    "parroted example": lambda task, body: {
        "decompose": '["Marie Curie discovered polonium."]',
    }.get(task, "Answer: YES. The passage states Alice was born in Paris, which is in France."),
}


def _contradicting(task: str, body: dict[str, Any]) -> str:
    """A judge that answers in format: one factoid, its variants, every verdict NO."""
    if task == "decompose":
        return json.dumps({"factoids": [ANSWER]})
    if task in ("synonym", "antonym"):
        return json.dumps({"variants": [f"{task} of the claim."]})
    return json.dumps({"verdict": "NO", "reason": "contradicted"})


def _policy(tmp_path: Path, url: str, **scorer: Any) -> Path:
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    settings = {"k": 1, "judge": f"openai-compatible:scripted@{url}", "max_attempts": 1}
    settings.update(scorer)
    for key, value in settings.items():
        lines = text.splitlines()
        found = [i for i, line in enumerate(lines) if line.startswith(f"  {key}:")]
        if found:
            lines[found[0]] = f"  {key}: {value}"
        else:
            lines.insert(lines.index("scorer:") + 1, f"  {key}: {value}")
        text = "\n".join(lines) + "\n"
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _guard(tmp_path: Path, url: str, **scorer: Any) -> Guard:
    return Guard.from_yaml(
        _policy(tmp_path, url, **scorer),
        audit_log=tmp_path / "audit.jsonl",
        review_db=tmp_path / "review.sqlite3",
        fallback_log=tmp_path / "fallback.jsonl",
    )


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "unused")


#: The cause each pathological judge's unusable replies are recorded with (among others).
CAUSE = {
    "empty": "empty",
    "echoed fence": "echoed_fence",
    "echoed prompt": "echoed_instructions",
    "placeholders": "placeholder",
    "malformed": "non_string_items",
    "parroted example": "echoed_instructions",
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_no_signal_never_passes_a_sensitive_topic(name: str, tmp_path: Path) -> None:
    with scripted_server(PATHOLOGICAL[name]) as server, _guard(tmp_path, server.url) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXT)
        assert server.exchanges, "the judge was never asked"
        # an openai-compatible judge streams by default (judge_stream: auto)
        assert all(e.body.get("stream") is True for e in server.exchanges)
    decision = result.decision
    assert decision.topic == "pregnancy"
    assert decision.action != "pass" and decision.action in ("abstain", "escalate")
    assert result.answer != ANSWER  # the user does not see the unchecked answer
    (record,) = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert record["decision"]["action"] == decision.action
    assert "judge unusable" in record["error"]
    assert any(call["parse_failure"] for call in record["judge_calls"])
    unusable = [call for call in record["judge_calls"] if call["reply_unusable"]]
    assert unusable and all(call["parse_causes"] for call in unusable)
    assert any(CAUSE[name] in call["parse_causes"] for call in unusable)
    # streamed replies from a server that sends no usage: the record says so
    assert all(call["usage_reported"] is False for call in record["judge_calls"])


def test_a_usable_judge_still_decides_on_its_score(tmp_path: Path) -> None:
    """The same wiring with a judge that answers in format: a scored decision, no error."""

    def script(task: str, body: dict[str, Any]) -> str:
        if task == "decompose":
            return json.dumps({"factoids": [ANSWER]})
        if task in ("synonym", "antonym"):
            return json.dumps({"variants": [f"{task} of the claim."]})
        negated = "synonym" not in _prompt(body) and "It is not true" in _prompt(body)
        return json.dumps({"verdict": "YES" if negated else "NO", "reason": "third trimester"})

    with scripted_server(script) as server, _guard(tmp_path, server.url) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXT)
        formats = {e.body.get("response_format", {}).get("type") for e in server.exchanges}
    assert result.decision.error is None and result.decision.flagged
    assert result.report is not None and result.report.usage.parse_failures == 0
    assert formats == {"json_schema"}


def _judge(url: str) -> OpenAIJudge:
    return OpenAIJudge("scripted", base_url=url, api_key="unused")


async def _warm(judge: OpenAIJudge, server: ScriptedServer) -> None:
    """One call first: the SDK's client and lazy imports cost a busy machine more than the
    short deadlines below; the warm-up exchange is then forgotten."""
    from guardrail.judges.base import JudgeRequest

    await judge.complete(JudgeRequest(task="warm", prompt="warm up", max_tokens=1))
    server.exchanges.clear()


async def test_an_expired_call_is_closed_before_its_retry() -> None:
    """The first verify call runs away; its HTTP request is closed at the call's timeout, and
    only then is the retry sent (so a server that watches its connections stops working)."""
    first = True

    def delay(task: str, body: dict[str, Any]) -> float:
        nonlocal first
        if task in ("decompose", "unknown"):
            return 0.0
        if first:
            first = False
            return 60.0
        return 0.0

    with scripted_server(lambda task, body: "", delay) as server:
        judge = _judge(server.url)
        await _warm(judge, server)
        policy = RetryPolicy(timeout_s=0.5, max_attempts=2, backoff_base_s=0.0)
        scorer = MetaRAG(judge, config=MetaRAGConfig(k=1), retry=policy, localizer=None)
        try:
            await scorer.score(QUESTION, ANSWER, CONTEXT)
        finally:
            await judge.aclose()
        await asyncio.sleep(0.2)  # the server thread notices the close
        runaway = next(e for e in server.exchanges if e.task != "decompose")
        retries = [e for e in server.exchanges if e is not runaway and e.body == runaway.body]
    assert runaway.disconnected
    assert runaway.finished is not None and runaway.finished - runaway.started < 2.0
    # the server noticed the close (polling every 20 ms) no later than the retry arrived
    assert len(retries) == 1 and retries[0].started >= runaway.finished - 0.05


async def test_the_turn_deadline_ends_scoring_with_every_call_recorded() -> None:
    with scripted_server(lambda task, body: "", lambda task, body: 30.0) as server:
        judge = _judge(server.url)
        policy = RetryPolicy(timeout_s=20, max_attempts=3, turn_timeout_s=1.0)
        scorer = MetaRAG(judge, config=MetaRAGConfig(k=1), retry=policy, localizer=None)
        started = time.monotonic()
        try:
            with pytest.raises(ScoringError) as caught:
                await scorer.score(QUESTION, ANSWER, CONTEXT)
        finally:
            await judge.aclose()
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.2)
        assert all(e.disconnected for e in server.exchanges)
    assert elapsed < 2.5
    assert caught.value.calls and not caught.value.calls[0].ok
    assert "deadline" in (caught.value.calls[0].error or "")


def test_the_turn_deadline_is_the_policys_on_error_decision(tmp_path: Path) -> None:
    with (
        scripted_server(lambda task, body: "", lambda task, body: 30.0) as server,
        _guard(tmp_path, server.url, turn_timeout_s=1.0, timeout_s=20) as guard,
    ):
        started = time.monotonic()
        result = guard.check(QUESTION, ANSWER, CONTEXT)
        elapsed = time.monotonic() - started
    assert elapsed < 3.0
    assert result.decision.action == "escalate"
    record = json.loads((tmp_path / "audit.jsonl").read_text().splitlines()[-1])
    assert "deadline" in record["error"]


async def test_a_runaway_row_delays_another_by_at_most_its_own_deadline() -> None:
    """One slot, as on llama.cpp: row A's call runs away; it is closed at its deadline, which
    frees the slot, so row B starts then and goes through (a server left generating would
    hold B for the whole minute)."""

    def delay(task: str, body: dict[str, Any]) -> float:
        return 60.0 if "A runaway." in _prompt(body) else 0.05

    deadline = 1.0
    rows = [
        EvalRow(
            id="a", task="qa", question="runaway", context=CONTEXT[0], answer="A runaway.", label=1
        ),
        EvalRow(id="b", task="qa", question=QUESTION, context=CONTEXT[0], answer=ANSWER, label=1),
    ]
    with scripted_server(_contradicting, delay, serial=True) as server:
        judge = _judge(server.url)
        await _warm(judge, server)
        policy = RetryPolicy(timeout_s=deadline, max_attempts=1)
        scorer = MetaRAG(judge, config=MetaRAGConfig(k=1), retry=policy, localizer=None)
        started = time.monotonic()
        try:
            result = await run_rows(rows, scorer, jobs=1)
        finally:
            await judge.aclose()
        runaway = server.exchanges[0]
        b_first = next(e for e in server.exchanges if "A runaway." not in _prompt(e.body))
    assert runaway.disconnected and not result.outcomes["a"].ok
    assert "no answer within 1s" in (result.outcomes["a"].error or "")
    assert result.outcomes["b"].ok
    # A held the slot for its deadline only: B's first call reached the server within the
    # deadline (plus the server's 20 ms polling and scheduling slack) of the run's start
    assert runaway.finished is not None and runaway.finished - runaway.started < deadline + 0.5
    assert b_first.started - started < deadline + 0.5


async def _after_a_runaway(stream: str, runaway_s: float, deadline: float) -> float:
    """On a one-slot server that, like llama-cpp-python's, notices a closed connection only
    while streaming: a call that runs away is cut by its deadline, then a short call is made.
    Returns how long the short call took. The judge is built from its spec, as the CLI and the
    policy build it (``judge_stream`` as given)."""
    from guardrail.judges.base import JudgeRequest
    from guardrail.judges.runner import JudgeCallError, JudgeRunner
    from guardrail.scoring.factory import judge_for
    from guardrail.scoring.settings import MetaRAGSettings

    def delay(task: str, body: dict[str, Any]) -> float:
        return runaway_s if "runaway" in _prompt(body) else 0.0

    def script(task: str, body: dict[str, Any]) -> str:
        return "once upon a time " * 50 if "runaway" in _prompt(body) else "OK"

    with scripted_server(script, delay, serial=True, plain_disconnects=False) as server:
        settings = MetaRAGSettings(judge=f"openai-compatible:scripted@{server.url}")
        judge = judge_for(settings.model_copy(update={"judge_stream": stream}))
        runner = JudgeRunner(judge, RetryPolicy(timeout_s=deadline, max_attempts=1))
        try:
            await runner.call("warm", JudgeRequest(task="warm", prompt="warm up"))
            with pytest.raises(JudgeCallError, match="no answer within"):
                await runner.call("story", JudgeRequest(task="story", prompt="a runaway story"))
            patient = JudgeRunner(judge, RetryPolicy(timeout_s=60.0, max_attempts=1))
            started = time.monotonic()
            response, _call = await patient.call("short", JudgeRequest(task="s", prompt="Say OK."))
            waited = time.monotonic() - started
        finally:
            await judge.aclose()  # type: ignore[attr-defined]
        assert response.text == "OK"
        runaway = next(e for e in server.exchanges if "runaway" in _prompt(e.body))
        assert runaway.body.get("stream", False) is (stream != "off")
    return waited


async def test_a_streamed_runaway_frees_a_server_that_only_notices_streamed_disconnects() -> None:
    """The default for an openai-compatible judge (judge_stream: auto) streams: the runaway's
    generation ends when its deadline closes the request, so the next call is not delayed by
    more than that deadline."""
    deadline = 1.0
    waited = await _after_a_runaway("auto", runaway_s=30.0, deadline=deadline)
    assert waited < deadline


async def test_a_plain_runaway_holds_such_a_server_to_its_end() -> None:
    """Why: the same runaway sent unstreamed (judge_stream: off) keeps the slot after its
    deadline, and the next call waits for the rest of it."""
    waited = await _after_a_runaway("off", runaway_s=4.0, deadline=1.0)
    assert waited > 2.5


async def test_a_call_waiting_for_a_place_stops_at_the_turn_deadline() -> None:
    """With one call allowed in flight, a second call waiting for the slot ends at the turn's
    deadline too (recorded, no try made), not when the first call is done."""
    from guardrail.judges.base import JudgeRequest
    from guardrail.judges.runner import JudgeCallError, JudgeRunner, turn_deadline
    from guardrail.testing import ScriptedJudge

    runner = JudgeRunner(
        ScriptedJudge(lambda request: "YES", latency_s=5.0),
        RetryPolicy(max_concurrency=1, timeout_s=30),
    )
    request = JudgeRequest(task="verify", prompt="p")
    started = time.monotonic()
    with turn_deadline(0.5):
        results = await asyncio.gather(
            runner.call("verify", request), runner.call("verify", request), return_exceptions=True
        )
    assert time.monotonic() - started < 1.5
    assert all(isinstance(r, JudgeCallError) for r in results)
    attempts = sorted(r.call.attempts for r in results if isinstance(r, JudgeCallError))
    assert attempts == [0, 1]


@pytest.mark.parametrize("usage_chunk", [False, True])
async def test_eval_counts_streamed_calls_whose_usage_is_unknown(usage_chunk: bool) -> None:
    """A server that streams no usage chunk (llama-cpp-python) leaves prompt tokens unknown;
    eval counts those calls rather than reporting their prompt tokens as a clean 0."""
    from guardrail.evaluation.results import summarize
    from guardrail.scoring.factory import judge_for
    from guardrail.scoring.settings import MetaRAGSettings

    row = EvalRow(id="r", task="qa", question=QUESTION, context=CONTEXT[0], answer=ANSWER, label=1)
    with scripted_server(_contradicting, stream_usage=usage_chunk) as server:
        judge = judge_for(MetaRAGSettings(judge=f"openai-compatible:scripted@{server.url}"))
        scorer = MetaRAG(judge, config=MetaRAGConfig(k=1), localizer=None)
        try:
            result = await run_rows([row], scorer)
        finally:
            await judge.aclose()  # type: ignore[attr-defined]
    cost = summarize([row], result.outcomes, threshold=0.5, threshold_source="t").cost
    assert cost is not None and cost.judge_calls > 0
    assert cost.calls_without_usage == (0 if usage_chunk else cost.judge_calls)
    assert (cost.prompt_tokens_per_answer > 0) is usage_chunk
