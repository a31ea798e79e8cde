"""The app factory: ``create_app(...)`` builds a fresh FastAPI app from explicit objects.

There is no module-level app: everything the routes need (the checker, the review queue, the
API key, reviewer tokens, metrics, templates) hangs off ``app.state.guardrail``, so two apps in
one process share nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.sessions import SessionMiddleware

from guardrail.exceptions import ConfigError
from guardrail.models import GuardResult
from guardrail.queues.sqlite import SQLiteQueue
from guardrail.server import api, metrics, review
from guardrail.server.auth import LoginThrottle, ReviewerTokens
from guardrail.server.metrics import Metrics
from guardrail.server.render import score_bucket

__all__ = ["Checker", "ServerState", "create_app"]

_HERE = Path(__file__).resolve().parent
_REVIEW_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SESSION_COOKIE = "guardrail_review"
SESSION_MAX_AGE_S = 8 * 3600


class Checker(Protocol):
    """What the service checks turns with — the Guard provides it."""

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult: ...


@dataclass
class ServerState:
    checker: Checker
    queue: SQLiteQueue
    api_key: str | None
    tokens: ReviewerTokens
    throttle: LoginThrottle
    metrics: Metrics
    templates: Jinja2Templates


def create_app(
    *,
    checker: Checker,
    queue: SQLiteQueue,
    api_key: str | None,
    reviewer_tokens: Mapping[str, str],
    session_secret: str | None = None,
    secure_cookies: bool = False,
    review_ui: bool = True,
    title: str = "guardrail",
    login_throttle: LoginThrottle | None = None,
) -> FastAPI:
    """Build the HTTP service.

    ``reviewer_tokens`` maps each reviewer's secret token to their name. ``session_secret``
    signs session cookies; when omitted a random one is drawn, so sessions end on restart.
    ``secure_cookies`` marks the cookie HTTPS-only (set it behind TLS). With ``review_ui``
    False only the JSON API, health and metrics are served. ``login_throttle`` limits failed
    reviewer logins per client address (default: 5 per 5 minutes).
    """
    if review_ui and not reviewer_tokens:
        raise ConfigError(
            "the review UI needs at least one reviewer token (token -> reviewer name);"
            " pass reviewer_tokens or review_ui=False"
        )
    if api_key is not None and not api_key.strip():
        raise ConfigError("api_key must be None (no auth) or a non-empty string")

    app = FastAPI(
        title=f"{title} service",
        summary="Hallucination guardrail for RAG answers, with a human review queue.",
        version="1",
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
    )
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

    app.middleware("http")(_observe)
    return app


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
