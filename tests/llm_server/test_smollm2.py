"""SmolLM2-135M-Instruct on llama.cpp (127.0.0.1) as the judge: a weak instruct model.

It follows its chat template and often answers in format, but it is no competent judge
(it lists no factoid for plainly factual answers, calls contradicted claims supported). These
tests check that the guard stays safe with it, never its accuracy.
"""

from __future__ import annotations

import json
import time

import pytest

from guardrail.cli import main
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.judges.runner import JudgeCallError, JudgeRunner, RetryPolicy
from guardrail.local_server import SMOLLM2_NAME, RunningServer
from guardrail.scoring.factory import judge_for
from guardrail.scoring.settings import MetaRAGSettings

from .conftest import ROOT

pytestmark = pytest.mark.llm_server

QUESTION = "Can pregnant women take ibuprofen for back pain?"
ANSWER = "Yes, ibuprofen is safe throughout pregnancy."
CONTEXT = (
    "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
    "generally considered the first choice for pain relief during pregnancy."
)


@pytest.mark.parametrize("structured", ["auto", "off"])
def test_the_readme_ibuprofen_example_is_never_a_pass(
    structured: str,
    smollm2: RunningServer,
    api_key: None,
    capsys: pytest.CaptureFixture[str],
    tmp_path,
) -> None:
    argv = [
        "check", "--policy", str(ROOT / "policies" / "default.yaml"),
        "--judge", f"openai-compatible:{SMOLLM2_NAME}@{smollm2.url}",
        "--structured-output", structured, "--timeout", "120", "--turn-timeout", "900",
        "--review-db", str(tmp_path / "review.sqlite3"),
        "--question", QUESTION, "--answer", ANSWER, "--context", CONTEXT, "--json",
    ]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    decision = result["decision"]
    assert decision["topic"] == "pregnancy"
    assert decision["action"] != "pass", decision["reason"]
    assert result["final_answer"] != ANSWER
    assert result.get("status") not in ("no_factoids", "unverifiable")


async def test_a_runaway_call_delays_the_next_by_less_than_its_deadline(
    smollm2: RunningServer,
) -> None:
    """llama-cpp-python stops generating only when a *streamed* request is closed. The judge an
    ``openai-compatible:`` spec builds streams by default, so a runaway call cut by its
    deadline frees the server's one slot at once: the next call is not delayed by more than
    that deadline (unstreamed, it would wait for the rest of the 1,500 tokens)."""
    settings = MetaRAGSettings(judge=f"openai-compatible:{SMOLLM2_NAME}@{smollm2.url}")
    judge = judge_for(settings)
    assert isinstance(judge, OpenAIJudge) and judge.stream
    deadline = 2.0
    cut = JudgeRunner(judge, RetryPolicy(timeout_s=deadline, max_attempts=1))
    patient = JudgeRunner(judge, RetryPolicy(timeout_s=120.0, max_attempts=1))
    story = JudgeRequest(
        task="story", prompt="Write a very long story about a lighthouse keeper.", max_tokens=1500
    )
    short = JudgeRequest(task="short", prompt="Say OK.", max_tokens=4)
    try:
        started = time.monotonic()
        await patient.call("short", short)  # also warms: the model is loaded, the slot free
        alone = time.monotonic() - started
        with pytest.raises(JudgeCallError, match="no answer within"):
            await cut.call("story", story)
        started = time.monotonic()
        response, _call = await patient.call("short", short)
        after = time.monotonic() - started
    finally:
        await judge.aclose()
    assert response.completion_tokens >= 1
    assert after - alone < deadline, (alone, after)
