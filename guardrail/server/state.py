"""What every route of one app reaches: :class:`ServerState`, as a typed FastAPI dependency.

Routes take ``state: StateDep`` (``Annotated[ServerState, Depends(server_state)]``) instead of
reading ``request.app.state`` untyped, so the type checker sees every field they use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Protocol

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates

from guardrail.models import GuardResult
from guardrail.queues.review_queue import ReviewQueue
from guardrail.server.auth import ReviewerTokens, Throttle
from guardrail.server.metrics import Metrics
from guardrail.server.sessions import SessionStore
from guardrail.serving.core import ServingCore
from guardrail.serving.limits import RequestLimits

__all__ = ["Checker", "ServerState", "StateDep", "server_state"]


class Checker(Protocol):
    """What the service checks turns with — the Guard provides it."""

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult: ...


@dataclass
class ServerState:
    checker: Checker
    queue: ReviewQueue
    api_key: str | None
    tokens: ReviewerTokens
    throttle: Throttle
    metrics: Metrics
    templates: Jinja2Templates
    sessions: SessionStore
    #: Limits, lanes and the in-flight count (:mod:`guardrail.serving.core`).
    core: ServingCore = field(default_factory=ServingCore)
    metrics_public: bool = False

    @property
    def limits(self) -> RequestLimits:
        return self.core.limits


def server_state(request: Request) -> ServerState:
    """The app's :class:`ServerState` (set by :func:`~guardrail.server.app.create_app`)."""
    state: ServerState = request.app.state.guardrail
    return state


StateDep = Annotated[ServerState, Depends(server_state)]
