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
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.sessions import SessionMiddleware

from guardrail._sync import LoopThread
from guardrail.exceptions import ConfigError
from guardrail.models import GuardResult
from guardrail.queues.review_queue import ReviewQueue
from guardrail.server import api, metrics, review
from guardrail.server.auth import LoginThrottle, ReviewerTokens
from guardrail.server.limits import GuardGate, RequestLimits
from guardrail.server.metrics import Metrics
from guardrail.server.render import score_bucket
from guardrail.server.sessions import SessionStore
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


def tune_serving_process() -> None:
    """Settings for a process that serves: a short thread switch interval, and every object
    that exists after start-up (libraries, models, the app) frozen out of the garbage
    collector. Scoring creates many short-lived objects; without the freeze each full
    collection walks all of start-up's objects too, pausing every thread for 60-100 ms."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    gc.collect()
    gc.freeze()


SESSION_COOKIE = "guardrail_review"
SESSION_MAX_AGE_S = 8 * 3600


class Checker(Protocol):
    """What the service checks turns with — the Guard provides it."""

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult: ...


@dataclass
class ServerState:
    checker: Checker
    queue: ReviewQueue
    api_key: str | None
    tokens: ReviewerTokens
    throttle: LoginThrottle
    metrics: Metrics
    templates: Jinja2Templates
    sessions: SessionStore
    limits: RequestLimits = field(default_factory=RequestLimits)
    #: The event loop (on its own thread) that checks are scored on.
    scoring: LoopThread = field(default_factory=lambda: LoopThread("guardrail-scoring"))
    in_flight: int = 0


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
    login_throttle: LoginThrottle | None = None,
    limits: RequestLimits | None = None,
) -> FastAPI:
    """Build the HTTP service.

    ``reviewer_tokens`` maps each reviewer's secret token to their name. ``session_secret``
    signs session cookies; when omitted a random one is drawn, so sessions end on restart.
    ``secure_cookies`` marks the cookie HTTPS-only (set it behind TLS). With ``review_ui``
    False only the JSON API, health and metrics are served. ``login_throttle`` limits failed
    reviewer logins per client address (default: 5 per 5 minutes). ``limits`` bounds what one
    request may send (:class:`~guardrail.server.limits.RequestLimits`).
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
        await asyncio.to_thread(app.state.guardrail.scoring.stop)

    app = FastAPI(
        title=f"{title} service",
        summary="Hallucination guardrail for RAG answers, with a human review queue.",
        version="1",
        lifespan=lifespan,
    )
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.globals["score_bucket"] = score_bucket
    app.state.guardrail = ServerState(
        checker=checker,
        queue=queue,
        api_key=api_key,
        tokens=ReviewerTokens.from_mapping(reviewer_tokens),
        throttle=login_throttle or LoginThrottle(),
        metrics=Metrics(),
        templates=templates,
        sessions=SessionStore(queue.target, max_age_s=SESSION_MAX_AGE_S),
        limits=limits or RequestLimits(),
    )
    state: ServerState = app.state.guardrail
    app.include_router(api.router)
    app.include_router(metrics.router)
    if review_ui:
        app.include_router(review.router)
        app.mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static")
        app.add_middleware(
            SessionMiddleware,
            secret_key=session_secret or secrets.token_urlsafe(32),
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
    )
    app.middleware("http")(_observe)
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


async def _observe(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Count requests by route *template* (bounded labels) and harden review pages."""
    response = await call_next(request)
    route = request.scope.get("route")
    template = getattr(route, "path", None) or (
        "/static" if request.url.path.startswith("/static/") else "unmatched"
    )
    state: ServerState = request.app.state.guardrail
    state.metrics.requests.labels(request.method, template, str(response.status_code)).inc()
    if request.url.path.startswith("/review"):
        response.headers.setdefault("Content-Security-Policy", _REVIEW_CSP)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response
