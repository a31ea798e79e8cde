"""A scripted OpenAI-compatible server: deterministic replies for tests, demos and benchmarks.

``scripted_upstream(reply)`` builds a Starlette app whose ``POST /v1/chat/completions``
answers every request with ``reply(body)``, a :class:`ScriptedReply`: text cut into the given
chunks (streamed as SSE when the request asks for it, with an optional pause between chunks),
tool calls, an HTTP error, a stream that breaks after a number of chunks, or one that never ends
(its chunks sent again and again until the client leaves, or one line that never ends). Replies
are written as ASCII JSON, so a lone surrogate in the text reaches the client as the escape
``"\\ud800"``. Every request body it received is kept in ``app.state.requests``, its headers
in ``app.state.headers``.
Serve it on 127.0.0.1 with ``guardrail.server.testing.serve_in_thread``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = ["ScriptedReply", "scripted_upstream"]

MODEL = "scripted-model"


@dataclass
class ScriptedReply:
    """One reply. ``chunks`` defaults to ``text`` cut after each space."""

    text: str = ""
    chunks: list[str] | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    error: str = "scripted failure"
    pause_s: float = 0.0  # before each chunk of a stream
    delay_s: float = 0.0  # before the response starts
    break_after: int | None = None  # chunks sent before the stream is cut (no [DONE])
    endless: bool = False  # the chunks are streamed again and again until the client leaves
    #: After the chunks, one more event whose line never ends: its content streamed on and on
    #: without a newline until the client leaves.
    unterminated: bool = False
    extra_choice: dict[str, Any] = field(default_factory=dict)
    #: Deltas streamed before the text (e.g. ``{"reasoning_content": ...}``), and fields added
    #: to a non-streamed message (e.g. ``{"refusal": ...}``).
    extra_deltas: list[dict[str, Any]] = field(default_factory=list)
    extra_message: dict[str, Any] = field(default_factory=dict)

    def pieces(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        words = self.text.split(" ")
        return [w + " " for w in words[:-1]] + ([words[-1]] if words[-1] else [])


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}


def _message(reply: ScriptedReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    return message | reply.extra_message


def _head() -> dict[str, Any]:
    return {"id": "chatcmpl-scripted", "created": 1_700_000_000, "model": MODEL}


def scripted_upstream(reply: Callable[[dict[str, Any]], ScriptedReply]) -> Starlette:
    """The app (see the module docstring)."""
    requests: list[dict[str, Any]] = []
    headers: list[dict[str, str]] = []

    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        requests.append(body)
        headers.append(dict(request.headers))
        script = reply(body)
        if script.delay_s:
            await asyncio.sleep(script.delay_s)
        if script.status != 200:
            error = {"message": script.error, "type": "scripted", "code": script.status}
            retry = {"retry-after": "1"} if script.status == 429 else None
            return JSONResponse({"error": error}, status_code=script.status, headers=retry)
        finish = "tool_calls" if script.tool_calls else "stop"
        if not body.get("stream"):
            count = body.get("n", 1) or 1
            choices = [
                {"index": i, "message": _message(script), "logprobs": None, "finish_reason": finish}
                | script.extra_choice
                for i in range(count)
            ]
            reply_body = {**_head(), "object": "chat.completion", "choices": choices}
            return _ascii_json(reply_body | {"usage": _usage()})
        return StreamingResponse(_events(script, finish), media_type="text/event-stream")

    async def models(request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "guardrail"}]}
        )

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
        ]
    )
    app.state.requests = requests
    app.state.headers = headers
    return app


def _ascii_json(body: dict[str, Any]) -> Response:
    """``body`` as ASCII JSON (Starlette's ``JSONResponse`` writes UTF-8, which a lone
    surrogate cannot be encoded in)."""
    return Response(json.dumps(body), media_type="application/json")


async def _events(script: ScriptedReply, finish: str) -> AsyncIterator[bytes]:
    head = {**_head(), "object": "chat.completion.chunk"}

    def event(delta: dict[str, Any], reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
        return f"data: {json.dumps({**head, 'choices': [choice]})}\n\n".encode()

    yield event({"role": "assistant", "content": ""})
    for delta in script.extra_deltas:
        yield event(delta)
    pieces = script.pieces()
    while True:
        for i, piece in enumerate(pieces):
            if script.break_after is not None and i >= script.break_after:
                raise ConnectionResetError("scripted: stream cut")
            if script.pause_s:
                await asyncio.sleep(script.pause_s)
            yield event({"content": piece})
        if not (script.endless and pieces):
            break
        await asyncio.sleep(0)  # let the server notice a client that left
    if script.unterminated:
        choice = '{"index": 0, "delta": {"content": "'
        yield f'data: {json.dumps(head)[:-1]}, "choices": [{choice}'.encode()
        while True:
            yield b"word " * 2_000
            await asyncio.sleep(0)
    for i, call in enumerate(script.tool_calls or []):
        yield event({"tool_calls": [{"index": i, **call}]})
    yield event({}, finish)
    yield b"data: [DONE]\n\n"
