"""SmolLM2-135M-Instruct on llama.cpp (127.0.0.1) as the judge: a weak instruct model.

It follows its chat template and often answers in format, but it is no competent judge
(it lists no factoid for plainly factual answers, calls contradicted claims supported). These
tests check that the guard stays safe with it, never its accuracy.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from guardrail.cli import main
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.local_server import SMOLLM2_NAME, RunningServer

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
    assert result.get("status") != "no_factoids"


async def test_a_streamed_call_past_its_deadline_frees_the_server(smollm2: RunningServer) -> None:
    """llama-cpp-python stops generating when a *streamed* request is closed: a runaway
    call ended by its deadline does not hold the server for the rest of its tokens."""
    judge = OpenAIJudge(SMOLLM2_NAME, base_url=smollm2.url, api_key="unused", stream=True)
    story = JudgeRequest(
        task="story", prompt="Write a very long story about a lighthouse keeper.", max_tokens=1500
    )
    short = JudgeRequest(task="short", prompt="Say OK.", max_tokens=4)
    try:
        await judge.complete(short)  # warm: the model is loaded and the slot is free
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(judge.complete(story), timeout=2.0)
        started = time.monotonic()
        response = await asyncio.wait_for(judge.complete(short), timeout=60)
        waited = time.monotonic() - started
    finally:
        await judge.aclose()
    assert response.completion_tokens >= 1
    # 1,500 tokens at this model's speed on 2 cores take far longer than this
    assert waited < 15.0
