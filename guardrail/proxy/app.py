"""The proxy app: an OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models``, guarded.

Built from ``serve``'s parts, not copies of them: :class:`~guardrail.serving.limits.GuardGate`
checks the API key (``Authorization: Bearer``, so the ``openai`` SDK's ``api_key`` works)
before the body is read and caps the body size; :class:`~guardrail.serving.limits.
RequestLimits` bounds the question and the contexts (checked like ``POST /v1/check``'s) and
the requests in flight (more get 503); the turns run on a scoring loop of their own
(``LoopThread``), so this loop keeps answering while the offline judge works.

Streaming uses Starlette's ``StreamingResponse``: OpenAI's stream is plain ``data:`` lines
ending with ``data: [DONE]`` — no event names, ids or retries to manage — so a
dedicated SSE package would add a dependency and nothing the stream needs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from guardrail._sync import LoopThread
from guardrail.exceptions import ConfigError, GuardrailError, RequestError
from guardrail.logs import get_logger
from guardrail.proxy.completions import GuardedSSE, Scoring, complete, open_stream
from guardrail.proxy.relay import loop_of, relay
from guardrail.proxy.request import ChatTurn, chat_shape, read_chat_request
from guardrail.proxy.upstream import Upstream, UpstreamError, error_body, guard_failure
from guardrail.serving.core import ServingCore, ServingError, read_json_body
from guardrail.serving.limits import (
    GuardGate,
    RequestLimits,
    UpstreamLimits,
    bearer_key,
    size_problem,
)

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.guard import Guard

__all__ = ["ProxyState", "create_proxy_app"]

_log = get_logger(__name__)
T = TypeVar("T")

#: The OpenAI error ``type`` for each status the proxy itself answers.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    500: "server_error",
    503: "server_busy",
}


@dataclass
class ProxyState:
    guard: Guard
    upstream: Upstream
    api_key: str | None
    forward_api_key: bool
    #: Limits, lanes, deadlines and the in-flight count, as ``serve`` has them.
    core: ServingCore = field(default_factory=ServingCore)
    #: The loop the upstream's requests and streams run on (this loop stays free).
    io: LoopThread = field(default_factory=lambda: LoopThread("guardrail-proxy"))
    #: How long, and in how many chunks, an upstream may stream one answer.
    upstream_limits: UpstreamLimits = field(default_factory=UpstreamLimits)

    @property
    def limits(self) -> RequestLimits:
        return self.core.limits


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    """Every error the proxy answers, in the OpenAI API's shape (the SDK shows ``message``)."""
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return error_body(message, kind, status)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(openai_error_body(status, message), status_code=status, headers=headers)


async def _read_turn(
    request: Request, limits: RequestLimits, upstream_limits: UpstreamLimits
) -> ChatTurn:
    """The request as a :class:`ChatTurn`; :class:`ServingError` for anything refused."""
    data, _replaced = read_json_body(await request.body(), chat_shape(limits))
    try:
        turn = read_chat_request(data)
    except RequestError as exc:
        raise ServingError(exc.status, str(exc)) from None
    problem = size_problem(limits, turn.question, turn.contexts)
    if problem is not None:
        raise ServingError(413, problem)
    if turn.choices > upstream_limits.max_choices:
        raise ServingError(
            400,
            f"'n' is {turn.choices}: this proxy scores at most "
            f"{upstream_limits.max_choices} choices a request (--max-choices)",
        )
    return turn


async def _chat(request: Request) -> Response:
    state: ProxyState = request.app.state.proxy
    core = state.core
    try:
        turn = await _read_turn(request, core.limits, state.upstream_limits)
        core.acquire("requests")
    except ServingError as exc:
        return _error(exc.status, exc.message, exc.headers or None)
    client_key = bearer_key(request.scope["headers"]) if state.forward_api_key else None
    scoring = Scoring(core, state.upstream_limits)
    release = True
    try:
        if not turn.stream:
            done = await _finished(
                state, complete(state.guard, state.upstream, turn, client_key, scoring)
            )
            return JSONResponse(done.body, headers=done.headers)
        opened = await _finished(
            state,
            open_stream(state.guard, state.upstream, turn, client_key, scoring),
            on_abandon=GuardedSSE.close,
        )
        release = False  # the stream's end releases the slot
        return StreamingResponse(
            _counted(core, relay(state.io, opened.body)),
            media_type="text/event-stream",
            headers={"x-guardrail-audit-id": opened.audit_id, "cache-control": "no-cache"},
        )
    except UpstreamError as exc:
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
    except ServingError as exc:
        return _error(exc.status, exc.message, exc.headers or None)
    except RequestError as exc:
        return _error(exc.status, str(exc))
    except ConfigError as exc:
        _log.error("configuration error in a proxied request", error=repr(exc))
        return _error(500, f"proxy configuration error: {exc}")
    except GuardrailError as exc:
        _log.error("the guard failed on a proxied request", error=repr(exc))
        return _error(503, guard_failure(exc))
    finally:
        if release:
            core.release()


async def _finished(
    state: ProxyState,
    coro: Coroutine[Any, Any, T],
    *,
    on_abandon: Callable[[T], Coroutine[Any, Any, None]] | None = None,
) -> T:
    """``coro`` run on the scoring loop, to its end even when this request's handler is
    cancelled (its client left and the server cancels handlers, or it shuts down): the turn
    is finished and recorded all the same. ``on_abandon(result)`` then runs on the scoring
    loop (a stream nobody will read is closed, and recorded as unread)."""
    try:
        there = await loop_of(state.io)
    except BaseException:
        coro.close()  # nothing was started: no turn to record
        raise
    future = asyncio.run_coroutine_threadsafe(coro, there)
    try:
        return await asyncio.shield(asyncio.wrap_future(future))
    except asyncio.CancelledError:
        if on_abandon is not None:
            abandon = on_abandon

            def done(finished: concurrent.futures.Future[T]) -> None:
                if not finished.cancelled() and finished.exception() is None:
                    asyncio.run_coroutine_threadsafe(abandon(finished.result()), there)

            future.add_done_callback(done)
        raise


async def _counted(core: ServingCore, body: AsyncIterator[list[bytes]]) -> AsyncIterator[bytes]:
    """The stream's batches, each sent as one write; the in-flight slot released at its end."""
    try:
        async for batch in body:
            yield b"".join(batch)
    finally:
        core.release()
        closer = getattr(body, "aclose", None)
        if closer is not None:
            await closer()


async def _models(request: Request) -> Response:
    state: ProxyState = request.app.state.proxy
    client_key = bearer_key(request.scope["headers"]) if state.forward_api_key else None
    try:
        data = await state.io.submit(state.upstream.get_json("/models", client_key))
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
    upstream_limits: UpstreamLimits | None = None,
) -> Starlette:
    """Build the proxy. ``api_key``: what clients must send (None: no key asked);
    ``forward_api_key``: send the client's key upstream (otherwise the ``upstream``'s own key,
    if it has one, or none); ``limits``: the request limits, deadline, lanes and work budget
    (as ``serve`` applies them); ``upstream_limits``: how long and in how many chunks the
    upstream may stream one answer."""
    if api_key is not None and not api_key.strip():
        raise ConfigError("api_key must be None (no auth) or a non-empty string")
    state = ProxyState(
        guard,
        upstream,
        api_key,
        forward_api_key,
        ServingCore(limits),
        upstream_limits=upstream_limits or UpstreamLimits(),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        try:
            await state.io.submit(_shutdown(state))
        except Exception as exc:
            _log.warning("proxy shutdown incomplete", error=repr(exc))
        await asyncio.to_thread(state.io.stop)
        await asyncio.to_thread(state.core.stop)

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
        error_body=openai_error_body,
    )
    return app


async def _shutdown(state: ProxyState) -> None:
    from guardrail.streaming.turn import drain_finishing

    await drain_finishing()
    await state.upstream.aclose()
    await state.guard.aclose()
