"""Prefix caching and stop sequences on the wire, through the official SDKs.

The scorer keeps each stage's shared block (instructions, then the context) first and
byte-identical across a turn's calls; the Anthropic backend marks it with ``cache_control``;
both backends send the stage's stop sequences and report the cached prompt tokens their API
returns.
"""

from __future__ import annotations

import httpx2

from guardrail.judges.anthropic import AnthropicJudge
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.judges.scripted import ScriptedJudge
from guardrail.scoring.metarag import MetaRAG
from guardrail.scoring.settings import MetaRAGConfig

from .fakes import FakeServer, anthropic_body, openai_body

PROMPT = "Instructions. Passages: the shared context.\nStatement: the varying part"
CUT = PROMPT.index("Statement:")


async def test_anthropic_marks_the_shared_block_for_caching_and_sends_stops():
    server = FakeServer([httpx2.Response(200, json=anthropic_body())])
    judge = AnthropicJudge("claude-test", api_key="k", http_client=server.http_client())
    request = JudgeRequest(task="verify", prompt=PROMPT, shared_prefix=CUT, stop=("\nStatement:",))
    await judge.complete(request)
    body = server.last.body
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": PROMPT[:CUT], "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PROMPT[CUT:]},
    ]
    assert body["stop_sequences"] == ["\nStatement:"]


async def test_anthropic_without_a_shared_block_sends_plain_text():
    server = FakeServer([httpx2.Response(200, json=anthropic_body())])
    judge = AnthropicJudge("claude-test", api_key="k", http_client=server.http_client())
    await judge.complete(JudgeRequest(task="decompose", prompt=PROMPT))
    assert server.last.body["messages"][0]["content"] == PROMPT
    assert "stop_sequences" not in server.last.body


async def test_anthropic_reports_cache_reads_as_cached_prompt_tokens():
    body = anthropic_body(prompt_tokens=10, completion_tokens=4)
    body["usage"].update(cache_creation_input_tokens=0, cache_read_input_tokens=900)
    server = FakeServer([httpx2.Response(200, json=body)])
    judge = AnthropicJudge("claude-test", api_key="k", http_client=server.http_client())
    response = await judge.complete(JudgeRequest(task="verify", prompt=PROMPT))
    assert (response.prompt_tokens, response.cached_prompt_tokens) == (910, 900)


async def test_openai_sends_stops_and_reads_cached_tokens():
    body = openai_body(prompt_tokens=2000)
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 1536}
    server = FakeServer([httpx2.Response(200, json=body)])
    judge = OpenAIJudge("gpt-test", api_key="k", http_client=server.http_client())
    request = JudgeRequest(task="verify", prompt=PROMPT, shared_prefix=CUT, stop=("\nA", "\nB"))
    response = await judge.complete(request)
    assert server.last.body["stop"] == ["\nA", "\nB"]
    # OpenAI caches prefixes automatically: the prompt is sent whole, unchanged.
    assert server.last.body["messages"][-1]["content"] == PROMPT
    assert (response.prompt_tokens, response.cached_prompt_tokens) == (2000, 1536)


async def test_openai_server_that_does_not_report_caching_gives_none():
    server = FakeServer([httpx2.Response(200, json=openai_body())])
    judge = OpenAIJudge("m", api_key="k", http_client=server.http_client())
    response = await judge.complete(JudgeRequest(task="verify", prompt=PROMPT))
    assert response.cached_prompt_tokens is None
    assert "stop" not in server.last.body


def _scripted() -> ScriptedJudge:
    replies = {
        "decompose": '["Paris is in France.", "The Seine flows through Paris."]',
        "synonym": "France contains Paris.\nParis lies in France.",
        "antonym": "Paris is not in France.\nParis is outside France.",
        "mutate_all": (
            '{"1": {"synonyms": ["a1", "a2"], "antonyms": ["b1", "b2"]},'
            ' "2": {"synonyms": ["c1", "c2"], "antonyms": ["d1", "d2"]}}'
        ),
        "verify": "YES. stated",
        "verify_batch": "\n".join(f"{n}. YES. stated" for n in range(1, 9)),
    }
    return ScriptedJudge(lambda request: replies[request.task])


async def test_every_verify_call_of_a_turn_shares_its_prefix_and_varies_only_after_it():
    judge = _scripted()
    scorer = MetaRAG(judge, config=MetaRAGConfig(k=2), localizer=None)
    context = ["Paris is the capital of France. " * 20]
    await scorer.score(
        "Where is Paris?", "Paris is in France. The Seine flows through Paris.", context
    )
    verify = [r for r in judge.requests if r.task == "verify"]
    assert len(verify) == 8
    prefixes = {r.prompt[: r.shared_prefix] for r in verify}
    assert len(prefixes) == 1  # byte-identical shared block
    (prefix,) = prefixes
    assert context[0].strip() in prefix  # the context is inside it ...
    assert all(r.inputs["statement"] not in prefix for r in verify)  # ... the statement is not
    assert all(r.prompt[r.shared_prefix :].startswith(r.inputs["statement"]) for r in verify)


async def test_each_stage_asks_for_a_sized_budget_and_stops():
    judge = _scripted()
    scorer = MetaRAG(judge, config=MetaRAGConfig(k=2, protocol="answer"), localizer=None)
    long_answer = "Paris is in France. " * 40
    await scorer.score("Where is Paris?", long_answer, ["Paris is in France."])
    by_task = {r.task: r for r in judge.requests}
    assert set(by_task) == {"decompose", "mutate_all", "verify_batch"}
    assert all(r.stop and len(r.stop) <= 4 for r in judge.requests)
    # decompose grows with the answer; a verdict line is about 40 tokens a statement
    assert by_task["decompose"].max_tokens > 2 * len(long_answer) // 4 - 1
    assert by_task["verify_batch"].max_tokens == 32 + 40 * len(
        by_task["verify_batch"].inputs["statements"]
    )
    short = _scripted()
    await MetaRAG(short, config=MetaRAGConfig(k=2), localizer=None).score(
        "q", "Paris is in France.", ["Paris is in France."]
    )
    assert {r.task: r.max_tokens for r in short.requests}["decompose"] < by_task[
        "decompose"
    ].max_tokens


async def test_max_tokens_setting_caps_every_stage():
    judge = _scripted()
    scorer = MetaRAG(judge, config=MetaRAGConfig(k=2, max_tokens=50), localizer=None)
    await scorer.score("q", "Paris is in France. " * 40, ["Paris is in France."])
    assert max(r.max_tokens or 0 for r in judge.requests) == 50
