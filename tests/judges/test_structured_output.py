"""Structured output on the wire: each API's way of asking for a reply schema, through the
official SDKs on a fake HTTP transport, and the fallback when a server does not support it."""

from __future__ import annotations

import json

import httpx2
import pytest

from guardrail.exceptions import JudgeRequestError
from guardrail.judges.anthropic import AnthropicJudge
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.models import Label
from guardrail.scoring.parsing import parse_verdict
from guardrail.scoring.schemas import schema_for

from .fakes import FakeServer, anthropic_body, error_response, openai_body

VERDICT = json.dumps({"verdict": "NO", "reason": "contradicted"})
REQUEST = JudgeRequest(task="verify", prompt="Statement: X", schema=schema_for("verify"))


def ok(text: str = VERDICT) -> httpx2.Response:
    return httpx2.Response(200, json=openai_body(text))


async def test_openai_gets_a_strict_json_schema_response_format() -> None:
    server = FakeServer([ok()])
    judge = OpenAIJudge("gpt-4.1-mini", api_key="k", http_client=server.http_client())
    response = await judge.complete(REQUEST)
    fmt = server.last.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == schema_for("verify")
    assert fmt["json_schema"]["name"] == "guardrail_verify"
    assert parse_verdict(response.text)[0].value == "NO"


async def test_a_request_without_schema_sends_no_response_format() -> None:
    server = FakeServer([ok("YES. fine")])
    judge = OpenAIJudge("gpt-4.1-mini", api_key="k", http_client=server.http_client())
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert "response_format" not in server.last.body


async def test_vllm_guided_json_goes_in_the_body_with_extra_body_kept() -> None:
    server = FakeServer([ok()])
    judge = OpenAIJudge(
        "m",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        http_client=server.http_client(),
        structured_output="guided_json",
        extra_body={"top_k": 1},
    )
    await judge.complete(REQUEST)
    assert server.last.body["guided_json"] == schema_for("verify")
    assert server.last.body["top_k"] == 1
    assert "response_format" not in server.last.body


async def test_auto_falls_back_form_by_form_and_remembers() -> None:
    """A server rejecting json_schema (422) is asked with json_object + schema (the form
    llama-cpp-python's server takes); the accepted form is used from then on."""
    server = FakeServer([error_response(422, "bad response_format"), ok(), ok()])
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client()
    )
    first = await judge.complete(REQUEST)
    second = await judge.complete(REQUEST)
    forms = [seen.body.get("response_format", {}).get("type") for seen in server.seen]
    assert forms == ["json_schema", "json_object", "json_object"]
    # the rejected request is one of the first call's requests (an attempt in its record)
    assert (first.requests, second.requests) == (2, 1)
    assert server.seen[1].body["response_format"]["schema"] == schema_for("verify")


async def test_a_server_error_naming_response_format_also_moves_on() -> None:
    """llama-cpp-python's server answers an unknown response_format type with HTTP 500."""
    refusal = error_response(500, "validation error: ('body', 'response_format', 'type')")
    server = FakeServer([refusal, ok()])
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client()
    )
    await judge.complete(REQUEST)
    assert [s.body["response_format"]["type"] for s in server.seen] == [
        "json_schema",
        "json_object",
    ]


async def test_auto_ends_with_plain_text_when_no_form_is_accepted() -> None:
    server = FakeServer([error_response(400), error_response(400), ok("NO. contradicted")])
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client()
    )
    response = await judge.complete(REQUEST)
    assert response.text == "NO. contradicted"
    assert "response_format" not in server.last.body


async def test_a_fixed_form_is_not_silently_dropped() -> None:
    server = FakeServer([error_response(400, "no")])
    judge = OpenAIJudge(
        "m",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        http_client=server.http_client(),
        structured_output="json_schema",
    )
    with pytest.raises(JudgeRequestError):
        await judge.complete(REQUEST)
    assert server.count == 1


async def test_off_sends_plain_requests() -> None:
    server = FakeServer([ok()])
    judge = OpenAIJudge(
        "gpt-4.1-mini", api_key="k", http_client=server.http_client(), structured_output="off"
    )
    await judge.complete(REQUEST)
    assert "response_format" not in server.last.body


async def test_anthropic_gets_a_forced_tool_and_its_input_is_the_reply() -> None:
    tool_use = {"type": "tool_use", "id": "tu_1", "name": "reply", "input": json.loads(VERDICT)}
    server = FakeServer([httpx2.Response(200, json=anthropic_body(blocks=[tool_use]))])
    judge = AnthropicJudge("claude-test", api_key="k", http_client=server.http_client())
    response = await judge.complete(REQUEST)
    body = server.last.body
    assert body["tools"] == [
        {
            "name": "reply",
            "description": "Give your reply in the required shape.",
            "input_schema": schema_for("verify"),
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "reply"}
    assert json.loads(response.text) == json.loads(VERDICT)


async def test_anthropic_without_schema_or_off_sends_no_tools() -> None:
    server = FakeServer([httpx2.Response(200, json=anthropic_body("YES. ok"))])
    judge = AnthropicJudge("claude-test", api_key="k", http_client=server.http_client())
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert "tools" not in server.last.body
    off = AnthropicJudge(
        "claude-test", api_key="k", http_client=server.http_client(), structured_output="off"
    )
    response = await off.complete(REQUEST)
    assert "tools" not in server.last.body and response.text == "YES. ok"


def _sse(*chunks: dict) -> httpx2.Response:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def _chunk(content: str | None, usage: dict | None = None) -> dict:
    choices = [] if content is None else [{"index": 0, "delta": {"content": content}}]
    out: dict = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out["choices"] = choices
    if usage is not None:
        out["usage"] = usage
    return out


async def test_a_streamed_reply_is_joined_and_its_usage_read() -> None:
    usage = {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43}
    server = FakeServer([_sse(_chunk('{"verdict"'), _chunk(': "NO", '), _chunk(None, usage))])
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client(),
        stream=True,
    )  # fmt: skip
    response = await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.last.body["stream"] is True
    assert server.last.body["stream_options"] == {"include_usage": True}
    assert response.text == '{"verdict": "NO", '
    assert (response.prompt_tokens, response.completion_tokens) == (40, 3)


async def test_a_stream_without_usage_counts_its_chunks() -> None:
    server = FakeServer([_sse(_chunk("NO"), _chunk("."), _chunk(" contradicted"))])
    judge = OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client(),
        stream=True,
    )  # fmt: skip
    response = await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert response.text == "NO. contradicted"
    assert (response.prompt_tokens, response.completion_tokens) == (0, 3)


def _streaming(server: FakeServer) -> OpenAIJudge:
    return OpenAIJudge(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=server.http_client(),
        stream=True,
    )  # fmt: skip


async def test_structured_output_is_streamed_too() -> None:
    """A streamed request still carries the reply schema; the joined chunks parse."""
    server = FakeServer([_sse(_chunk('{"verdict": "NO", '), _chunk('"reason": "contradicted"}'))])
    response = await _streaming(server).complete(REQUEST)
    body = server.last.body
    assert body["stream"] is True and body["response_format"]["type"] == "json_schema"
    assert parse_verdict(response.text)[:2] == (Label.NO, "contradicted")
    assert parse_verdict(response.text)[2] is None
    # llama-cpp-python sends no usage chunk: the response says its usage is unknown
    assert response.usage_reported is False


async def test_a_streamed_request_moves_on_from_a_rejected_form() -> None:
    """llama-cpp-python refuses the json_schema form with HTTP 500 before any event; the
    same call is streamed again in its json_object form."""
    refusal = error_response(500, "validation error: ('body', 'response_format', 'type')")
    usage = {"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32}
    server = FakeServer([refusal, _sse(_chunk(VERDICT), _chunk(None, usage))])
    response = await _streaming(server).complete(REQUEST)
    assert [s.body["response_format"]["type"] for s in server.seen] == [
        "json_schema",
        "json_object",
    ]
    assert all(s.body["stream"] is True for s in server.seen)
    assert response.requests == 2 and response.text == VERDICT
    assert response.usage_reported is True and response.prompt_tokens == 30
