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
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any

from pydantic import Field

from guardrail.validation import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

API_KEY_HINT = "missing or invalid API key (send 'Authorization: Bearer <key>' or 'X-API-Key')"
#: How a front end shapes an error reply: ``(status, message) -> JSON body``.
ErrorBody = Callable[[int, str], dict[str, Any]]


def detail_body(status: int, message: str) -> dict[str, Any]:
    """The HTTP service's error shape (FastAPI's): ``{"detail": message}``."""
    return {"detail": message}


class RequestLimits(Settings):
    """Per-request limits of the HTTP service (sizes in bytes of the body, characters of text)."""

    max_body_bytes: int = Field(
        default=4_000_000, ge=1_000, le=1_000_000_000, description="whole request body"
    )
    max_question_chars: int = Field(default=20_000, ge=1, le=100_000_000)
    max_answer_chars: int = Field(default=100_000, ge=1, le=100_000_000)
    max_contexts: int = Field(
        default=200, ge=0, le=100_000, description="retrieved passages per request"
    )
    max_context_chars: int = Field(
        default=100_000, ge=1, le=1_000_000_000, description="one passage"
    )
    max_total_context_chars: int = Field(
        default=1_000_000,
        ge=1,
        le=1_000_000_000,
        description="all passages of one request together",
    )
    max_in_flight: int = Field(
        default=64, ge=1, le=100_000, description="checks scored or waiting at once; more get 503"
    )
    max_work: int = Field(
        default=1_000_000,
        ge=1,
        le=10**12,
        description="estimated scoring work of one check: answer claims x context characters"
        " + 10 x answer characters",
    )
    small_work: int = Field(
        default=100_000,
        ge=0,
        le=10**12,
        description="checks up to this work are scored on their own lane, never behind large ones",
    )
    max_check_seconds: int = Field(
        default=30,
        ge=1,
        le=3_600,
        description="scoring deadline of one check; past it the topic's on_error rule decides",
    )
    scoring_threads: int = Field(
        default=1, ge=1, le=64, description="threads scoring large checks (one more: small ones)"
    )


class UpstreamLimits(Settings):
    """What the proxy asks of and reads from its upstream, beside the answer's characters
    (``max_answer_chars``): past a stream's time or chunk bound, or at a line or event of the
    stream over ``max_event_bytes`` (one endless line is never buffered whole), the upstream's
    stream is closed and what arrived is scored; a request for more choices than
    ``max_choices`` is refused (every choice is scored); a non-streamed reply over
    ``max_reply_bytes`` is not read (a 502, recorded)."""

    max_stream_seconds: int = Field(
        default=300,
        ge=1,
        le=86_400,
        description="seconds one upstream stream may last; past it the stream is cut",
    )
    max_stream_chunks: int = Field(
        default=50_000,
        ge=1,
        le=100_000_000,
        description="events one upstream stream may send (every chunk counts); past it the"
        " stream is cut",
    )
    max_event_bytes: int = Field(
        default=1_000_000,
        ge=1_000,
        le=100_000_000,
        description="bytes of one line or event of an upstream stream; past it the stream is"
        " cut (one event can still carry a whole answer of --max-answer-chars)",
    )
    max_choices: int = Field(
        default=4,
        ge=1,
        le=128,
        description="choices ('n') one request may ask the upstream for; every one is scored",
    )
    max_reply_bytes: int = Field(
        default=16_000_000,
        ge=1_000,
        le=1_000_000_000,
        description="bytes of one non-streamed upstream reply the proxy reads; a larger reply"
        " is refused (502) and recorded",
    )


def size_problem(
    limits: RequestLimits,
    question: str,
    contexts: Sequence[str],
    answer: str | None = None,
) -> str | None:
    """What breaks a size limit of one turn, if anything (one line for the 413 reply, naming
    the flag). ``answer`` is checked when the client sends it (``serve``); the proxy's answer
    comes from its upstream and is bounded there."""
    checks = [(len(question), limits.max_question_chars, "question", "max-question-chars")]
    if answer is not None:
        checks.append((len(answer), limits.max_answer_chars, "answer", "max-answer-chars"))
    checks += [
        (len(contexts), limits.max_contexts, "number of contexts", "max-contexts"),
        (max(map(len, contexts), default=0), limits.max_context_chars, "a context",
         "max-context-chars"),
        (sum(map(len, contexts)), limits.max_total_context_chars, "all contexts",
         "max-total-context-chars"),
    ]  # fmt: skip
    for size, limit, what, flag in checks:
        if size > limit:
            return f"{what}: {size} is over the limit of {limit} (--{flag})"
    return None


def presented_key(raw_headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The key a request presents, as the bytes it sent: ``X-API-Key: <key>``, else
    ``Authorization: Bearer <key>``."""
    bearer: bytes | None = None
    for name, value in raw_headers:
        lower = name.lower()
        if lower == b"x-api-key":
            return value.strip()
        if lower == b"authorization" and bearer is None:
            scheme, _, credentials = value.strip().partition(b" ")
            if scheme.lower() == b"bearer":
                bearer = credentials.strip()
    return bearer


def bearer_key(raw_headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header (to forward upstream), if any."""
    for name, value in raw_headers:
        if name.lower() == b"authorization":
            scheme, _, credentials = value.strip().partition(b" ")
            if scheme.lower() == b"bearer" and credentials.strip():
                return credentials.strip().decode("utf-8", "replace")
            return None
    return None


def api_key_matches(raw_headers: Iterable[tuple[bytes, bytes]], expected: str) -> bool:
    """Whether the request carries ``expected``, compared in constant time as UTF-8 bytes (the
    header's own bytes, so a key with non-ASCII characters matches when sent as UTF-8)."""
    given = presented_key(raw_headers)
    return bool(given) and hmac.compare_digest(given or b"", expected.encode("utf-8"))


def needs_api_key(path: str, *, metrics_public: bool) -> bool:
    """The paths behind the API key: ``/v1/*``, and ``/metrics`` unless it is made public."""
    return path.startswith("/v1/") or (path == "/metrics" and not metrics_public)


class GuardGate:
    """API key first, then a body-size cap; see the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        api_key: Callable[[], str | None],
        max_body_bytes: Callable[[], int],
        protected: Callable[[str], bool] = lambda path: path.startswith("/v1/"),
        error_body: ErrorBody = detail_body,
    ) -> None:
        self.app = app
        self._api_key = api_key
        self._max_body = max_body_bytes
        self._protected = protected
        self._error_body = error_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        expected = self._api_key()
        if (
            expected is not None
            and self._protected(scope["path"])
            and not api_key_matches(scope["headers"], expected)
        ):
            scope["guardrail.refused"] = 401
            await _reply(send, self._error_body, 401, API_KEY_HINT, {"www-authenticate": "Bearer"})
            return
        limit = self._max_body()
        declared = next((v for k, v in scope["headers"] if k.lower() == b"content-length"), None)
        if declared is not None and not declared.isdigit():
            await _reply(send, self._error_body, 400, "invalid Content-Length header")
            return
        if declared is not None and int(declared) > limit:
            await _reply(send, self._error_body, 413, f"request body larger than {limit} bytes")
            return
        await _capped(self.app, scope, receive, send, limit, self._error_body)


async def _capped(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, limit: int, error_body: ErrorBody
) -> None:
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
        await _reply(send, error_body, 413, f"request body larger than {limit} bytes")


async def _reply(
    send: Send,
    error_body: ErrorBody,
    status: int,
    detail: str,
    extra: dict[str, str] | None = None,
) -> None:
    body = json.dumps(error_body(status, detail)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
