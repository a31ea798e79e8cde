"""The proxy app: an OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models``, guarded.

Built from ``serve``'s parts, not copies of them: :class:`~guardrail.server.limits.GuardGate`
checks the API key (``Authorization: Bearer``, so the ``openai`` SDK's ``api_key`` works)
before the body is read and caps the body size; :class:`~guardrail.server.limits.
RequestLimits` bounds the question and the contexts (checked like ``POST /v1/check``'s) and
the requests in flight (more get 503); the turns run on a scoring loop of their own
(``LoopThread``), so this loop keeps answering while the offline judge works.

Streaming uses Starlette's ``StreamingResponse``: OpenAI's stream is plain ``data:`` lines
ending with ``data: [DONE]`` — no event names, ids or retries to manage — so a
dedicated SSE package would add a dependency and nothing the stream needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from guardrail._sync import LoopThread
from guardrail.exceptions import ConfigError, GuardrailError
from guardrail.proxy.completions import complete, open_stream
from guardrail.proxy.relay import relay
from guardrail.proxy.request import ChatTurn, read_chat_request
from guardrail.proxy.upstream import Upstream, UpstreamError, error_body
from guardrail.server.api import CheckRequest
from guardrail.server.limits import GuardGate, RequestLimits

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.guard import Guard

__all__ = ["ProxyState", "create_proxy_app"]


@dataclass
class ProxyState:
    guard: Guard
    upstream: Upstream
    api_key: str | None
    forward_api_key: bool
    limits: RequestLimits = field(default_factory=RequestLimits)
    scoring: LoopThread = field(default_factory=lambda: LoopThread("guardrail-proxy"))
    in_flight: int = 0


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(error_body(message, kind, status), status_code=status, headers=headers)


def _bearer(request: Request) -> str | None:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return credentials.strip() or None if scheme.lower() == "bearer" else None


def _too_large(turn: ChatTurn, limits: RequestLimits) -> str | None:
    check = CheckRequest.model_construct(question=turn.question, answer="", contexts=turn.contexts)
    return check.too_large(limits)


async def _chat(request: Request) -> Response:
    state: ProxyState = request.app.state.proxy
    try:
        body = json.loads(await request.body())
    except ValueError:
        return _error(400, "the request body is not valid JSON", "invalid_request_error")
    try:
        turn = read_chat_request(body)
    except ConfigError as exc:
        return _error(400, str(exc), "invalid_request_error")
    problem = _too_large(turn, state.limits)
    if problem is not None:
        return _error(413, problem, "invalid_request_error")
    if turn.stream and turn.choices > 1:
        return _error(
            400, "streaming is guarded for one choice: use n=1 with stream", "invalid_request_error"
        )
    if state.in_flight >= state.limits.max_in_flight:
        busy = f"busy: {state.in_flight} requests in progress; retry shortly"
        return _error(503, busy, "server_busy", {"retry-after": "1"})
    client_key = _bearer(request) if state.forward_api_key else None
    state.in_flight += 1
    release = True
    try:
        if not turn.stream:
            done = await state.scoring.submit(
                complete(state.guard, state.upstream, turn, client_key)
            )
            return JSONResponse(done.body, headers=done.headers)
        opened = await state.scoring.submit(
            open_stream(state.guard, state.upstream, turn, client_key)
        )
        release = False  # the stream's end releases the slot
        return StreamingResponse(
            _counted(state, relay(state.scoring, opened.body)),
            media_type="text/event-stream",
            headers={"x-guardrail-audit-id": opened.audit_id, "cache-control": "no-cache"},
        )
    except UpstreamError as exc:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
    except ConfigError as exc:
        return _error(400, str(exc), "invalid_request_error")
    except GuardrailError as exc:
        return _error(503, f"{type(exc).__name__}: {exc}", "guard_error")
    finally:
        if release:
            state.in_flight -= 1


async def _counted(state: ProxyState, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    try:
        async for piece in body:
            yield piece
    finally:
        state.in_flight -= 1
        closer = getattr(body, "aclose", None)
        if closer is not None:
            await closer()


async def _models(request: Request) -> Response:
    state: ProxyState = request.app.state.proxy
    client_key = _bearer(request) if state.forward_api_key else None
    try:
        data = await state.scoring.submit(state.upstream.get_json("/models", client_key))
    except UpstreamError as exc:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
    return JSONResponse(data)


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


def create_proxy_app(
    *,
    guard: Guard,
    upstream: Upstream,
    api_key: str | None = None,
    forward_api_key: bool = False,
    limits: RequestLimits | None = None,
) -> Starlette:
    """Build the proxy. ``api_key``: what clients must send (None: no key asked);
    ``forward_api_key``: send the client's key upstream (otherwise the ``upstream``'s own key,
    if it has one, or none)."""
    if api_key is not None and not api_key.strip():
        raise ConfigError("api_key must be None (no auth) or a non-empty string")
    state = ProxyState(guard, upstream, api_key, forward_api_key, limits or RequestLimits())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        with contextlib.suppress(Exception):
            await state.scoring.submit(_shutdown(state))
        await asyncio.to_thread(state.scoring.stop)

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", _chat, methods=["POST"]),
            Route("/v1/models", _models, methods=["GET"]),
            Route("/healthz", _healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.proxy = state
    app.add_middleware(
        GuardGate,
        api_key=lambda: state.api_key,
        max_body_bytes=lambda: state.limits.max_body_bytes,
    )
    return app


async def _shutdown(state: ProxyState) -> None:
    from guardrail.streaming.turn import drain_finishing

    await drain_finishing()
    await state.upstream.aclose()
    await state.guard._close_built_judges()
