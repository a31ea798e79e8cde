"""The app factory: ``create_app(...)`` builds a fresh FastAPI app from explicit objects.

There is no module-level app: everything the routes need (the checker, the review queue, the
API key, reviewer tokens, metrics, templates) hangs off ``app.state.guardrail``, so two apps in
one process share nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import secrets
import sys
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.sessions import SessionMiddleware
from starlette.routing import Match

from guardrail.exceptions import ConfigError
from guardrail.queues.review_queue import ReviewQueue
from guardrail.server import api, review
from guardrail.server.auth import ReviewerTokens, Throttle
from guardrail.server.metrics import Metrics
from guardrail.server.render import score_bucket
from guardrail.server.sessions import SessionStore
from guardrail.server.state import Checker, ServerState, server_state
from guardrail.server.throttle import SharedLoginThrottle
from guardrail.serving.core import ServingCore
from guardrail.serving.limits import (
    ASGIApp,
    GuardGate,
    Message,
    Receive,
    RequestLimits,
    Scope,
    Send,
    needs_api_key,
)
from guardrail.telemetry.http import TraceContextMiddleware

__all__ = ["Checker", "ServerState", "create_app"]

_HERE = Path(__file__).resolve().parent
_REVIEW_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
#: The interpreter's thread switch interval in a serving process (default 5 ms): the scoring
#: thread is CPU-bound, and a shorter slice lets the request loop answer sooner.
SWITCH_INTERVAL_S = 0.001


#: Allocations between young-generation collections in a serving process (default 700).
#: Scoring a large check allocates hundreds of thousands of short-lived containers (a token
#: per context word); at the default, full collections follow each other every second or so,
#: each pausing every thread (the request loop included) for 60-110 ms. At 10,000 a maximal
#: check runs without one (``python -m benchmarks.service_fairness``).
GC_YOUNG_THRESHOLD = 10_000


def tune_serving_process() -> None:
    """Settings for a process that serves: a short thread switch interval, a garbage collector
    that runs less often, and every object that exists after start-up (libraries, models, the
    app) frozen out of the collector. Scoring creates many short-lived objects; without the
    freeze each full collection walks all of start-up's objects too."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


SESSION_COOKIE = "guardrail_review"
SESSION_MAX_AGE_S = 8 * 3600


def create_app(
    *,
    checker: Checker,
    queue: ReviewQueue,
    api_key: str | None,
    reviewer_tokens: Mapping[str, str],
    session_secret: str | None = None,
    secure_cookies: bool = False,
    review_ui: bool = True,
    title: str = "guardrail",
    login_throttle: Throttle | None = None,
    limits: RequestLimits | None = None,
    metrics_public: bool = False,
) -> FastAPI:
    """Build the HTTP service.

    ``reviewer_tokens`` maps each reviewer's secret token to their name. ``session_secret``
    signs session cookies; when omitted a random one is drawn, so sessions end on restart.
    ``secure_cookies`` marks the cookie HTTPS-only (set it behind TLS). With ``review_ui``
    False only the JSON API, health and metrics are served. ``login_throttle`` limits failed
    reviewer logins per client address (default: 5 per 5 minutes, counted in the review
    database so every worker shares the limit). ``limits`` bounds what one
    request may send and cost (:class:`~guardrail.serving.limits.RequestLimits`). ``/metrics``
    needs the API key when one is set, unless ``metrics_public`` is True.

    Each request's turn runs with its own deadline ticket
    (:mod:`guardrail.scoring.deadline`), so a request's deadline or its client leaving ends
    scoring with the topic's ``on_error`` decision (audited); the checker is not changed.
    """
    if review_ui and not reviewer_tokens:
        raise ConfigError(
            "the review UI needs at least one reviewer token (token -> reviewer name);"
            " pass reviewer_tokens or review_ui=False"
        )
    if api_key is not None and not api_key.strip():
        raise ConfigError("api_key must be None (no auth) or a non-empty string")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await asyncio.to_thread(app.state.guardrail.core.stop)

    app = FastAPI(
        title=f"{title} service",
        summary="Hallucination guardrail for RAG answers, with a human review queue.",
        version="1",
        lifespan=lifespan,
    )
    secret = session_secret or secrets.token_urlsafe(32)
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.globals["score_bucket"] = score_bucket
    limits = limits or RequestLimits()
    app.state.guardrail = ServerState(
        checker=checker,
        queue=queue,
        api_key=api_key,
        tokens=ReviewerTokens.from_mapping(reviewer_tokens, secret.encode("utf-8")),
        throttle=login_throttle or SharedLoginThrottle(queue.target),
        metrics=Metrics(),
        templates=templates,
        sessions=SessionStore(queue.target, max_age_s=SESSION_MAX_AGE_S),
        core=ServingCore(limits),
        metrics_public=metrics_public,
    )
    state: ServerState = app.state.guardrail
    app.include_router(api.router)
    if review_ui:
        app.include_router(review.router)
        app.mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static")
        app.add_middleware(
            SessionMiddleware,
            secret_key=secret,
            session_cookie=SESSION_COOKIE,
            max_age=SESSION_MAX_AGE_S,
            same_site="strict",
            https_only=secure_cookies,
        )

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/review" if review_ui else "/docs", status_code=307)

    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_middleware(
        GuardGate,
        api_key=lambda: state.api_key,
        max_body_bytes=lambda: state.limits.max_body_bytes,
        protected=lambda path: needs_api_key(path, metrics_public=state.metrics_public),
    )
    app.add_middleware(Observe)
    # Outermost: a caller's W3C traceparent becomes the parent of the guard's turn span.
    app.add_middleware(TraceContextMiddleware)
    return app


def _safe(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, lone surrogates escaped (JSON-encodable)."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return short.encode("utf-8", "backslashreplace").decode("utf-8")


async def _invalid_request(request: Request, exc: Exception) -> Response:
    """422 naming each problem, without echoing the input back (it may be megabytes, or not
    even encodable: FastAPI's default handler fails with a 500 on a lone surrogate)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [
        {"loc": [_safe(str(p)) for p in e.get("loc", ())], "msg": _safe(str(e.get("msg", "")))}
        for e in errors[:20]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


def _leaf_routes(routes: Iterable[Any]) -> Iterator[Any]:
    """Routes with a path template, included routers flattened (however FastAPI wraps them)."""
    for route in routes:
        inner = getattr(route, "original_router", None) or getattr(route, "included_router", None)
        if inner is not None:
            yield from _leaf_routes(inner.routes)
        elif isinstance(getattr(route, "path", None), str) and hasattr(route, "matches"):
            yield route


def _route_template(request: Request) -> str:
    """The matched route's path template; for a request answered before routing (a 401 or 413
    from the gate) the template of the route it was sent to, else ``unmatched``."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    if request.url.path.startswith("/static/"):
        return "/static"
    for candidate in _leaf_routes(request.app.router.routes):
        match, _ = candidate.matches(request.scope)
        if match is not Match.NONE:
            found: str = candidate.path
            return found
    return "unmatched"


_REVIEW_HEADERS = (
    (b"content-security-policy", _REVIEW_CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)


class Observe:
    """Count requests by route *template* (bounded labels) and harden review pages.

    A pure ASGI middleware (no extra task or stream per request, unlike ``@app.middleware``):
    it adds the security headers a response lacks as the response starts, and counts the
    request once it is answered.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        review = scope["path"].startswith("/review")

        async def observed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                extra = (*_REVIEW_HEADERS, *_ALL_HEADERS) if review else _ALL_HEADERS
                headers += [(k, v) for k, v in extra if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        finally:
            request = Request(scope)
            state = server_state(request)
            template = _route_template(request)
            state.metrics.requests.labels(scope["method"], template, str(status)).inc()


_ALL_HEADERS = ((b"x-content-type-options", b"nosniff"),)
