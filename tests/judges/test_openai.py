"""OpenAIJudge specifics: the Chat Completions request it sends and the servers it can target."""

from __future__ import annotations

import httpx2
import openai
import pytest

from guardrail.exceptions import JudgeRequestError
from guardrail.judges.base import Judge, JudgeRequest
from guardrail.judges.openai import OpenAIJudge

from .fakes import FakeServer, openai_body


def ok(**kw) -> httpx2.Response:
    return httpx2.Response(200, json=openai_body(**kw))


async def test_request_shape_for_hosted_openai():
    """POST /v1/chat/completions with model, temperature, system + user messages and a limit."""
    server = FakeServer([ok()])
    judge = OpenAIJudge("gpt-4.1-mini", api_key="sk-test", http_client=server.http_client())
    request = JudgeRequest(task="verify", prompt="Statement: X", system="You verify.")
    await judge.complete(request)
    seen = server.last
    assert (seen.method, seen.url) == ("POST", "https://api.openai.com/v1/chat/completions")
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body["model"] == "gpt-4.1-mini"
    assert seen.body["temperature"] == 0.0
    assert seen.body["messages"] == [
        {"role": "system", "content": "You verify."},
        {"role": "user", "content": "Statement: X"},
    ]
    # OpenAI itself gets the current field; max_tokens is deprecated there.
    assert seen.body["max_completion_tokens"] == 512
    assert "max_tokens" not in seen.body


async def test_request_values_come_from_the_request_when_given():
    """Request temperature and max_tokens override the judge's defaults; no system, no message."""
    server = FakeServer([ok()])
    judge = OpenAIJudge(
        "gpt-4.1-mini", api_key="k", max_tokens=99, http_client=server.http_client()
    )
    await judge.complete(JudgeRequest(task="synonym", prompt="p", temperature=0.7, max_tokens=64))
    assert server.last.body["temperature"] == 0.7
    assert server.last.body["max_completion_tokens"] == 64
    assert server.last.body["messages"] == [{"role": "user", "content": "p"}]


async def test_default_max_tokens_is_the_constructor_value():
    """A request without max_tokens uses the judge's max_tokens."""
    server = FakeServer([ok()])
    judge = OpenAIJudge(
        "gpt-4.1-mini", api_key="k", max_tokens=99, http_client=server.http_client()
    )
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.last.body["max_completion_tokens"] == 99


async def test_compatible_server_gets_base_url_and_max_tokens():
    """With base_url, requests go to that server, carry max_tokens, and the name says so."""
    server = FakeServer([ok(text="YES. local")])
    judge = OpenAIJudge(
        "llama3.1:8b",
        base_url="http://localhost:11434/v1",
        api_key="not-needed",
        http_client=server.http_client(),
    )
    assert judge.name == "openai-compatible:llama3.1:8b"
    response = await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert response.text == "YES. local"
    assert server.last.url == "http://localhost:11434/v1/chat/completions"
    assert server.last.body["max_tokens"] == 512
    assert "max_completion_tokens" not in server.last.body


async def test_openai_base_url_environment_variable_is_honoured(monkeypatch: pytest.MonkeyPatch):
    """OPENAI_BASE_URL (read by the SDK on first call) redirects requests; the name is fixed."""
    server = FakeServer([ok()])
    judge = OpenAIJudge("qwen2.5", api_key="k", http_client=server.http_client())
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.last.url == "http://127.0.0.1:8000/v1/chat/completions"
    assert "max_tokens" in server.last.body
    assert judge.name == "openai:qwen2.5"


async def test_extra_body_is_merged_into_every_request():
    """Server-specific options (e.g. vLLM guided decoding) ride along in the JSON body."""
    server = FakeServer([ok()])
    judge = OpenAIJudge(
        "m",
        api_key="k",
        base_url="http://localhost:8000/v1",
        extra_body={"guided_choice": ["YES", "NO"]},
        http_client=server.http_client(),
    )
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    await judge.complete(JudgeRequest(task="verify", prompt="q"))
    assert [s.body["guided_choice"] for s in server.seen] == [["YES", "NO"], ["YES", "NO"]]


async def test_no_choices_gives_empty_text_and_missing_model_falls_back():
    """An empty choices list is an empty answer; a null model falls back to the configured one."""
    body = openai_body()
    body["choices"] = []
    body["model"] = None
    server = FakeServer([httpx2.Response(200, json=body)])
    judge = OpenAIJudge("gpt-4.1-mini", api_key="k", http_client=server.http_client())
    response = await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert (response.text, response.model) == ("", "gpt-4.1-mini")


async def test_json_without_choices_is_a_config_error():
    """A JSON 200 that is not a chat completion (wrong endpoint) fails, naming the base URL."""
    server = FakeServer([httpx2.Response(200, json={"models": []})])
    judge = OpenAIJudge(
        "m", api_key="k", base_url="http://localhost:1234/v1", http_client=server.http_client()
    )
    with pytest.raises(JudgeRequestError, match="http://localhost:1234/v1"):
        await judge.complete(JudgeRequest(task="verify", prompt="p"))


async def test_missing_key_for_a_local_server_suggests_any_value():
    """With a base URL and no key, the hint says a local server accepts any key."""
    server = FakeServer([ok()])
    judge = OpenAIJudge("m", base_url="http://localhost:11434/v1", http_client=server.http_client())
    with pytest.raises(JudgeRequestError, match="accepts any value"):
        await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.count == 0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({}, "openai:gpt-4.1-mini"),
        ({"base_url": "http://localhost:8000/v1"}, "openai-compatible:gpt-4.1-mini"),
        ({"name": "verifier-a"}, "verifier-a"),
    ],
)
def test_name(kwargs: dict, name: str):
    """The audit name says which backend, and whether it is OpenAI or a compatible server."""
    judge = OpenAIJudge("gpt-4.1-mini", **kwargs)
    assert judge.name == name
    assert isinstance(judge, Judge)


@pytest.mark.parametrize(
    ("base_url", "name"),
    [
        ("https://api.openai.com/v1", "openai:m"),
        ("http://localhost:8000/v1", "openai-compatible:m"),
    ],
)
def test_name_of_a_passed_client_follows_its_base_url(base_url: str, name: str):
    """A client you built for a local server is labelled openai-compatible in the audit trail."""
    client = openai.AsyncOpenAI(api_key="k", base_url=base_url)
    assert OpenAIJudge("m", client=client).name == name
