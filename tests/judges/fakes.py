"""Fake HTTP servers for the SDK judges: the real ``openai`` / ``anthropic`` clients talk to them.

:class:`FakeServer` plugs into the SDKs through ``httpx2.MockTransport`` (the transport both
SDKs are built on), answers from a script and records every request, so tests see the exact
wire request and exercise the SDKs' own response parsing and error classes.
:func:`loopback_server` is a real HTTP server on 127.0.0.1, for the few behaviours a mock
transport cannot show (connection pools bound to an event loop).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import httpx2
import openai

from guardrail.judges.anthropic import AnthropicJudge
from guardrail.judges.base import Judge
from guardrail.judges.openai import OpenAIJudge

#: One scripted answer: a response, an exception the transport raises, or a handler.
Reply = (
    httpx2.Response
    | Exception
    | Callable[[httpx2.Request], "httpx2.Response | Awaitable[httpx2.Response]"]
)


@dataclass
class Seen:
    """One request as it reached the wire."""

    method: str
    url: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeServer:
    """Answers requests with ``replies`` in order (the last one repeats); records them."""

    replies: Sequence[Reply]
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.replies:
            raise ValueError("FakeServer needs at least one reply")

    async def _handle(self, request: httpx2.Request) -> httpx2.Response:
        raw = request.content
        self.seen.append(
            Seen(
                method=request.method,
                url=str(request.url),
                path=request.url.path,
                headers={k.lower(): v for k, v in request.headers.items()},
                body=json.loads(raw) if raw else None,
            )
        )
        reply = self.replies[min(len(self.seen), len(self.replies)) - 1]
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, httpx2.Response):
            return reply
        out = reply(request)
        return out if isinstance(out, httpx2.Response) else await out

    def http_client(self) -> httpx2.AsyncClient:
        """An ``httpx2.AsyncClient`` whose every request lands in this fake."""
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self._handle))

    @property
    def count(self) -> int:
        return len(self.seen)

    @property
    def last(self) -> Seen:
        return self.seen[-1]


# --- response bodies, as each API sends them ---------------------------------------------


def openai_body(
    text: str | None = "YES. supported",
    *,
    prompt_tokens: int = 11,
    completion_tokens: int = 3,
    model: str = "gpt-test-2025",
    usage: bool = True,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text},
            }
        ],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return body


def anthropic_body(
    text: str | None = "YES. supported",
    *,
    prompt_tokens: int = 11,
    completion_tokens: int = 3,
    model: str = "claude-test-2025",
    blocks: list[dict[str, Any]] | None = None,
    usage: bool = True,
) -> dict[str, Any]:
    if blocks is None:
        blocks = [] if text is None else [{"type": "text", "text": text}]
    body: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "end_turn",
    }
    if usage:
        body["usage"] = {"input_tokens": prompt_tokens, "output_tokens": completion_tokens}
    return body


def error_response(status: int, message: str = "scripted failure") -> httpx2.Response:
    """An error in the shape both APIs use: ``{"error": {"type": ..., "message": ...}}``."""
    return httpx2.Response(
        status, json={"type": "error", "error": {"type": "scripted_error", "message": message}}
    )


# --- the two backends, side by side, for parametrized tests ------------------------------


@dataclass(frozen=True)
class Backend:
    """What a shared test needs to know about one SDK backend."""

    id: str
    path: str
    key_env: str
    body: Callable[..., dict[str, Any]]
    factory: Callable[..., Judge]
    sdk: Callable[..., Any]

    def ok(self, text: str | None = "YES. supported", **kw: Any) -> httpx2.Response:
        return httpx2.Response(200, json=self.body(text, **kw))

    def judge(self, server: FakeServer, **options: Any) -> Judge:
        """A judge whose lazily built SDK client sends everything to ``server``."""
        options.setdefault("api_key", "sk-test")
        return self.factory("test-model", http_client=server.http_client(), **options)

    def sdk_client(self, server: FakeServer) -> Any:
        """An SDK client built by the caller (key ``sk-own-client``) that talks to ``server``."""
        return self.sdk(api_key="sk-own-client", max_retries=0, http_client=server.http_client())


OPENAI = Backend(
    id="openai",
    path="/v1/chat/completions",
    key_env="OPENAI_API_KEY",
    body=openai_body,
    factory=OpenAIJudge,
    sdk=openai.AsyncOpenAI,
)
ANTHROPIC = Backend(
    id="anthropic",
    path="/v1/messages",
    key_env="ANTHROPIC_API_KEY",
    body=anthropic_body,
    factory=AnthropicJudge,
    sdk=anthropic.AsyncAnthropic,
)
BACKENDS = [OPENAI, ANTHROPIC]


# --- a real server on the loopback interface -----------------------------------------------


@contextlib.contextmanager
def loopback_server() -> Iterator[tuple[str, list[str]]]:
    """Serve both APIs' success bodies on 127.0.0.1; yield the root URL and the paths hit."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so the client pools its connection

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            hits.append(self.path)
            body = anthropic_body() if self.path.endswith("/messages") else openai_body()
            payload = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
