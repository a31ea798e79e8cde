"""What one request may cost, enforced before any work is done on it.

:class:`RequestLimits` holds the numbers (all configurable; ``guardrail serve`` has flags for
them). :class:`GuardGate` is a pure ASGI middleware in front of the whole app: for ``/v1/*`` it
checks the API key from the headers *before* the body is read, and for every request it refuses
a body larger than ``max_body_bytes`` — by ``Content-Length`` at once, and while streaming when
the length is not declared — so a 100 MB upload costs neither memory nor parsing time.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pydantic import Field

from guardrail.validation import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

API_KEY_HINT = "missing or invalid API key (send 'Authorization: Bearer <key>' or 'X-API-Key')"


class RequestLimits(Settings):
    """Per-request limits of the HTTP service (sizes in bytes of the body, characters of text)."""

    max_body_bytes: int = Field(default=4_000_000, ge=1_000, description="whole request body")
    max_question_chars: int = Field(default=20_000, ge=1)
    max_answer_chars: int = Field(default=100_000, ge=1)
    max_contexts: int = Field(default=200, ge=0, description="retrieved passages per request")
    max_context_chars: int = Field(default=100_000, ge=1, description="one passage")
    max_total_context_chars: int = Field(
        default=1_000_000, ge=1, description="all passages of one request together"
    )
    max_in_flight: int = Field(
        default=64, ge=1, description="checks scored or waiting at once; more get 503"
    )


def api_key_matches(headers: dict[str, str], expected: str) -> bool:
    """``Authorization: Bearer <key>`` or ``X-API-Key: <key>``, compared in constant time."""
    given = headers.get("x-api-key")
    if given is None:
        scheme, _, credentials = headers.get("authorization", "").partition(" ")
        given = credentials.strip() if scheme.lower() == "bearer" else None
    return bool(given) and hmac.compare_digest(
        (given or "").encode("utf-8", "surrogatepass"), expected.encode("utf-8")
    )


class GuardGate:
    """API key first, then a body-size cap; see the module docstring."""

    def __init__(
        self, app: ASGIApp, *, api_key: Callable[[], str | None], max_body_bytes: Callable[[], int]
    ) -> None:
        self.app = app
        self._api_key = api_key
        self._max_body = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        expected = self._api_key()
        if (
            expected is not None
            and scope["path"].startswith("/v1/")
            and not api_key_matches(headers, expected)
        ):
            await _reply(send, 401, API_KEY_HINT, {"www-authenticate": "Bearer"})
            return
        limit = self._max_body()
        declared = headers.get("content-length")
        if declared is not None and not declared.isdigit():
            await _reply(send, 400, "invalid Content-Length header")
            return
        if declared is not None and int(declared) > limit:
            await _reply(send, 413, f"request body larger than {limit} bytes")
            return
        await _capped(self.app, scope, receive, send, limit)


async def _capped(app: ASGIApp, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    """Run ``app``; once more than ``limit`` body bytes arrive it sees a disconnect, its reply is
    dropped and the client gets 413 instead."""
    seen = 0
    over = started = False

    async def capped_receive() -> Message:
        nonlocal seen, over
        if over:
            return {"type": "http.disconnect"}
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                over = True
                return {"type": "http.disconnect"}
        return message

    async def guarded_send(message: Message) -> None:
        nonlocal started
        if over:
            return
        if message["type"] == "http.response.start":
            started = True
        await send(message)

    try:
        await app(scope, capped_receive, guarded_send)
    except Exception:
        if not over:
            raise
    if over and not started:
        await _reply(send, 413, f"request body larger than {limit} bytes")


async def _reply(send: Send, status: int, detail: str, extra: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
