"""Error bodies from a judge or the upstream are never copied: what reaches an exception, a
client reply, an audit record or a span is the status and a short summary built from a closed
vocabulary (the error's type and code when they are plain identifiers, the request fields it
names), so a server that echoes the request's key or prompt leaks neither."""

from __future__ import annotations

import json
from typing import Any

import httpx
import httpx2
import pytest

from guardrail.exceptions import JudgeError
from guardrail.judges.base import JudgeRequest
from guardrail.proxy.upstream import Upstream, UpstreamError
from tests.judges.fakes import BACKENDS, Backend, FakeServer

SECRET = "sk-live-SECRETKEY0123456789"
PROMPT = "Patient Jane Roe, born 1961, asks whether ibuprofen is safe in pregnancy."
REQUEST = JudgeRequest(task="verify", prompt=PROMPT)


def _echo(status: int, **error: Any) -> dict[str, Any]:
    """An error body that echoes the key and the prompt, as some servers do."""
    return {
        "error": {
            "message": f"bad request from key {SECRET}: {PROMPT}",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
            "param": "messages",
            **error,
        },
        "headers": {"authorization": f"Bearer {SECRET}"},
        "status": status,
    }


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.id)
@pytest.mark.parametrize("status", [400, 401, 404, 422, 429, 500, 503])
async def test_a_judge_error_keeps_the_status_and_drops_the_echo(
    backend: Backend, status: int
) -> None:
    """The judge's error names the status and the error's type and code, never its text."""
    server = FakeServer([httpx2.Response(status, json=_echo(status))])
    with pytest.raises(JudgeError) as info:
        await backend.judge(server).complete(REQUEST)
    text = str(info.value)
    assert f"HTTP {status}" in text and info.value.status_code == status
    assert "invalid_request_error" in text and "context_length_exceeded" in text
    assert SECRET not in text and "Jane Roe" not in text and "ibuprofen" not in text
    assert len(text) < 300


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.id)
async def test_a_judge_error_with_free_text_in_its_type_drops_it(backend: Backend) -> None:
    """An error 'type' or 'code' that is not a plain identifier is dropped too."""
    body = _echo(400, type=f"echo {PROMPT}", code=SECRET + " !")
    server = FakeServer([httpx2.Response(400, json=body)])
    with pytest.raises(JudgeError) as info:
        await backend.judge(server).complete(REQUEST)
    text = str(info.value)
    assert "Jane Roe" not in text and SECRET not in text and "HTTP 400" in text


def _upstream(status: int, body: bytes, content_type: str = "application/json") -> Upstream:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers={"content-type": content_type})

    return Upstream(
        "http://upstream.test/v1", api_key=SECRET, transport=httpx.MockTransport(handler)
    )


@pytest.mark.parametrize("status", [400, 401, 404, 429])
async def test_an_upstream_client_error_is_summarised_for_the_client(status: int) -> None:
    """A 4xx keeps its status and the OpenAI error shape; the message is a summary."""
    upstream = _upstream(status, json.dumps(_echo(status)).encode())
    with pytest.raises(UpstreamError) as info:
        await upstream.post_json("/chat/completions", {"messages": [{"content": PROMPT}]})
    err = info.value
    dumped = json.dumps(err.body) + str(err)
    assert err.status == status
    assert SECRET not in dumped and "Jane Roe" not in dumped
    assert err.body["error"]["type"] == "invalid_request_error"
    assert err.body["error"]["code"] == "context_length_exceeded"
    assert err.body["error"]["param"] == "messages"
    assert f"upstream answered {status}" in err.body["error"]["message"]


@pytest.mark.parametrize("status", [500, 502, 503])
@pytest.mark.parametrize("content_type", ["application/json", "text/plain"])
async def test_an_upstream_server_error_is_summarised(status: int, content_type: str) -> None:
    """A 5xx is a 502 whose message holds the upstream's status, never its body."""
    raw = (
        json.dumps(_echo(status)).encode()
        if content_type.endswith("json")
        else (f"Traceback: key={SECRET} prompt={PROMPT}".encode())
    )
    upstream = _upstream(status, raw, content_type)
    with pytest.raises(UpstreamError) as info:
        await upstream.post_json("/chat/completions", {})
    dumped = json.dumps(info.value.body) + str(info.value)
    assert info.value.status == 502 and f"upstream answered {status}" in dumped
    assert SECRET not in dumped and "Jane Roe" not in dumped


async def test_an_unreachable_upstream_names_no_address() -> None:
    """A transport failure says what kind of failure, not the exception's text."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {SECRET}@10.1.2.3")

    upstream = Upstream("http://u.test/v1", transport=httpx.MockTransport(handler))
    with pytest.raises(UpstreamError) as info:
        await upstream.get_json("/models")
    dumped = json.dumps(info.value.body) + str(info.value)
    assert info.value.status == 502 and "ConnectError" in dumped
    assert SECRET not in dumped and "10.1.2.3" not in dumped
