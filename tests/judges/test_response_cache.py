"""The opt-in response cache: repeated temperature-0 calls never reach the judge's server."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from guardrail.cli import main
from guardrail.judges import JudgeRequest
from guardrail.judges.cache import CachingJudge, ResponseCache
from guardrail.judges.openai import OpenAIJudge
from guardrail.scoring import MetaRAG, MetaRAGConfig, build_scorer
from guardrail.scoring.settings import MetaRAGSettings

from .fakes import FakeServer, openai_body

ANSWER = "Paris is in France."
CONTEXT = ["Paris is in France."]


def handle(request: httpx2.Request) -> httpx2.Response:
    prompt = json.loads(request.content)["messages"][-1]["content"]
    if "extract atomic facts" in prompt:
        text = json.dumps([ANSWER])
    elif "Statement:" in prompt:
        text = "NO." if " not " in prompt.rsplit("Statement:", 1)[1] else "YES."
    elif "Antonym" in prompt:
        text = "Paris is not in France."
    else:
        text = "Paris lies in France."
    return httpx2.Response(200, json=openai_body(text, prompt_tokens=50, completion_tokens=5))


def judge(server: FakeServer) -> OpenAIJudge:
    return OpenAIJudge("m", api_key="sk-test", http_client=server.http_client())


async def test_a_second_run_is_answered_from_the_cache(tmp_path: Path):
    server = FakeServer([handle])
    cache = ResponseCache(tmp_path / "replies.sqlite3")
    scorer = MetaRAG(CachingJudge(judge(server), cache))
    first = await scorer.score("Where is Paris?", ANSWER, CONTEXT)
    sent = server.count
    second = await scorer.score("Where is Paris?", ANSWER, CONTEXT)
    assert sent == first.usage.judge_calls > 0 and server.count == sent  # nothing new sent
    assert first.usage.cached_calls == 0 and first.usage.prompt_tokens == 50 * sent
    assert second.usage.cached_calls == second.usage.judge_calls == sent
    assert second.usage.prompt_tokens == 0 and all(c.cached for c in second.calls)
    assert second.score == first.score and len(cache) == sent


async def test_calls_above_temperature_zero_are_never_cached(tmp_path: Path):
    """Mutations at temperature 0.7 go to the server each time; the rest is cached."""
    server = FakeServer([handle])
    cache = ResponseCache(tmp_path / "replies.sqlite3")
    scorer = MetaRAG(CachingJudge(judge(server), cache), config=MetaRAGConfig(temperature=0.7))
    await scorer.score("Where is Paris?", ANSWER, CONTEXT)
    sent = server.count
    second = await scorer.score("Where is Paris?", ANSWER, CONTEXT)
    mutations = [c for c in second.calls if c.stage in ("synonym", "antonym")]
    assert mutations and not any(c.cached for c in mutations)
    assert server.count - sent == len(mutations) == 2
    assert second.usage.cached_calls == second.usage.judge_calls - 2


async def test_judges_and_prompts_do_not_share_entries(tmp_path: Path):
    cache = ResponseCache(tmp_path / "replies.sqlite3")
    server = FakeServer([handle])
    request = JudgeRequest(task="verify", prompt="Statement: Paris is in France.")
    a = CachingJudge(OpenAIJudge("m", api_key="k", http_client=server.http_client()), cache)
    b = CachingJudge(OpenAIJudge("n", api_key="k", http_client=server.http_client()), cache)
    await a.complete(request)
    await b.complete(request)
    await a.complete(JudgeRequest(task="verify", prompt="Statement: Paris is in Spain."))
    assert server.count == 3 and len(cache) == 3
    assert (await a.complete(request)).cached and server.count == 3


def test_build_scorer_wraps_every_judge_once(tmp_path: Path):
    settings = MetaRAGSettings(response_cache=str(tmp_path / "c.sqlite3"))
    scorer = build_scorer(settings)
    assert isinstance(scorer, MetaRAG)
    assert isinstance(scorer.decomposer, CachingJudge)
    assert scorer.decomposer is scorer.generator is scorer.verifiers[0]


def test_check_with_a_response_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """`guardrail check --response-cache`: the second run reports every call as cached."""
    argv = ["check", "-q", "Where is Paris?", "-a", ANSWER, "-c", CONTEXT[0], "--json"]
    argv += ["--response-cache", str(tmp_path / "c.sqlite3")]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)["usage"]
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)["usage"]
    assert first["cached_calls"] == 0 < first["judge_calls"]
    assert second["cached_calls"] == second["judge_calls"] == first["judge_calls"]
