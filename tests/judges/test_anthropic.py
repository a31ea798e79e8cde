"""AnthropicJudge specifics: the Messages request it sends and how it reads the answer."""

from __future__ import annotations

import random

import httpx2
import pytest

from guardrail.exceptions import JudgeRequestError
from guardrail.judges.anthropic import AnthropicJudge
from guardrail.judges.base import Judge, JudgeRequest
from guardrail.judges.runner import JudgeRunner, RetryPolicy

from .fakes import FakeServer, anthropic_body, error_response


def ok(**kw) -> httpx2.Response:
    return httpx2.Response(200, json=anthropic_body(**kw))


def judge_for(server: FakeServer, **kw) -> AnthropicJudge:
    kw.setdefault("api_key", "sk-ant-test")
    return AnthropicJudge("claude-sonnet-test", http_client=server.http_client(), **kw)


async def test_request_shape():
    """POST /v1/messages with model, max_tokens, top-level system and one user message."""
    server = FakeServer([ok()])
    request = JudgeRequest(task="verify", prompt="Statement: X", system="You verify.")
    await judge_for(server).complete(request)
    seen = server.last
    assert (seen.method, seen.url) == ("POST", "https://api.anthropic.com/v1/messages")
    assert seen.headers["authorization"] == "Bearer sk-ant-test"
    assert "anthropic-version" in seen.headers
    assert seen.body == {
        "model": "claude-sonnet-test",
        "max_tokens": 512,
        "system": "You verify.",
        "messages": [{"role": "user", "content": "Statement: X"}],
    }


async def test_no_temperature_and_no_empty_system_are_sent():
    """Sampling parameters are rejected by the API version SDK 2.x speaks, so none is sent."""
    server = FakeServer([ok()])
    await judge_for(server, max_tokens=99).complete(
        JudgeRequest(task="synonym", prompt="p", temperature=0.7, max_tokens=64)
    )
    body = server.last.body
    assert "temperature" not in body and "system" not in body
    assert body["max_tokens"] == 64


async def test_text_blocks_are_joined_and_other_blocks_skipped():
    """The answer is every text block in order; thinking and tool-use blocks are not answer text."""
    blocks = [
        {"type": "thinking", "thinking": "let me check", "signature": "sig"},
        {"type": "text", "text": "YES. "},
        {"type": "tool_use", "id": "t1", "name": "lookup", "input": {}},
        {"type": "text", "text": "The context says so."},
    ]
    server = FakeServer([ok(blocks=blocks)])
    response = await judge_for(server).complete(JudgeRequest(task="verify", prompt="p"))
    assert response.text == "YES. The context says so."


async def test_prompt_tokens_include_cache_reads_and_writes():
    """input_tokens excludes cached tokens, so cache reads and writes are added back."""
    body = anthropic_body(prompt_tokens=10, completion_tokens=4)
    body["usage"].update(cache_creation_input_tokens=100, cache_read_input_tokens=1000)
    server = FakeServer([httpx2.Response(200, json=body)])
    response = await judge_for(server).complete(JudgeRequest(task="verify", prompt="p"))
    assert (response.prompt_tokens, response.completion_tokens) == (1110, 4)


async def test_overloaded_529_is_retried_by_the_runner():
    """Anthropic's 529 "overloaded" is a rate limit: retried, then the answer is returned."""
    server = FakeServer([error_response(529, "Overloaded"), ok(text="NO. wrong year")])
    runner = JudgeRunner(judge_for(server), RetryPolicy(backoff_base_s=0.001), rng=random.Random(0))
    response, call = await runner.call("verify", JudgeRequest(task="verify", prompt="p"))
    assert response.text == "NO. wrong year"
    assert server.count == 2 and call.attempts == 2


async def test_base_url_points_requests_at_a_proxy():
    """base_url sends requests to a gateway instead of api.anthropic.com."""
    server = FakeServer([ok()])
    await judge_for(server, base_url="http://localhost:4000").complete(
        JudgeRequest(task="verify", prompt="p")
    )
    assert server.last.url == "http://localhost:4000/v1/messages"


async def test_environment_credentials_and_base_url_are_honoured(monkeypatch: pytest.MonkeyPatch):
    """ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL, set after construction, are used."""
    server = FakeServer([ok()])
    judge = AnthropicJudge("claude-sonnet-test", http_client=server.http_client())
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.last.headers["authorization"] == "Bearer tok-env"
    assert server.last.url == "http://127.0.0.1:4000/v1/messages"


async def test_broken_profile_is_a_clear_request_error(monkeypatch: pytest.MonkeyPatch):
    """A named profile that cannot be loaded fails without retry and says why."""
    server = FakeServer([ok()])
    judge = AnthropicJudge("claude-sonnet-test", http_client=server.http_client())
    monkeypatch.setenv("ANTHROPIC_PROFILE", "nonexistent")
    with pytest.raises(JudgeRequestError, match="cannot load credentials") as info:
        await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert not info.value.retryable and server.count == 0


def test_name():
    """The audit name is anthropic:MODEL unless overridden."""
    assert AnthropicJudge("claude-sonnet-test").name == "anthropic:claude-sonnet-test"
    assert AnthropicJudge("claude-sonnet-test", name="second-opinion").name == "second-opinion"
    assert isinstance(AnthropicJudge("claude-sonnet-test"), Judge)
