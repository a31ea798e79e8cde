"""The JSON API: ``POST /v1/check``, ``GET /healthz`` and ``GET /metrics``.

A check goes through, in order (each step refuses before the next costs anything):

1. the API key and the body size (:class:`~guardrail.serving.limits.GuardGate`, before the body);
2. a count of the body's strings, values and containers (:func:`~guardrail.serving.body.
   precheck_json`), then JSON parsing (413/422);
3. odd code points replaced before validation (:func:`guardrail.sanitize.clean_json`; the
   reply's ``X-Guardrail-Replaced-Characters`` header says how many), then validation (422);
4. the size limits and the estimated scoring work (413, naming the limit);
5. the in-flight limit (503 with ``Retry-After``);
6. scoring on the small or the large lane, under the request's deadline, stopped if the client
   disconnects (:mod:`guardrail.serving.scheduler`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from guardrail.exceptions import ConfigError, GuardrailError, RequestError
from guardrail.logs import get_logger
from guardrail.models import GuardResult
from guardrail.scoring.deadline import Ticket
from guardrail.server.state import StateDep
from guardrail.serving.body import JsonShape
from guardrail.serving.core import ServingError, read_json_body
from guardrail.serving.limits import (
    API_KEY_HINT,
    RequestLimits,
    api_key_matches,
    size_problem,
)

__all__ = ["CheckRequest", "router"]

router = APIRouter()
_log = get_logger(__name__)

REPLACED_HEADER = "X-Guardrail-Replaced-Characters"


class CheckRequest(BaseModel):
    """One RAG turn to check. Sizes are checked against the server's ``RequestLimits``."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    answer: str
    contexts: list[str] = Field(default_factory=list)

    def too_large(self, limits: RequestLimits) -> str | None:
        """What breaks a size limit, if anything (one line for the 413 reply)."""
        return size_problem(limits, self.question, self.contexts, self.answer)


def check_shape(limits: RequestLimits) -> JsonShape:
    """The most a valid check body holds: three fields and ``max_contexts`` passages."""
    return JsonShape(
        max_strings=limits.max_contexts + 16,
        max_values=limits.max_contexts + 8,
        max_containers=4,
        what=f"at most {limits.max_contexts} contexts (--max-contexts)",
    )


def require_api_key(request: Request, state: StateDep) -> None:
    """FastAPI dependency: 401 unless the request carries the configured API key (the gate in
    front of the app checks it first; this keeps the route safe if mounted without it)."""
    if state.api_key is None:
        return
    if not api_key_matches(request.scope["headers"], state.api_key):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, API_KEY_HINT, headers={"WWW-Authenticate": "Bearer"}
        )


async def read_check(request: Request, limits: RequestLimits) -> tuple[CheckRequest, int]:
    """Steps 2-4 of the module docstring: the validated, cleaned request and the number of
    replaced characters, or an HTTP error."""
    try:
        data, replaced = read_json_body(await request.body(), check_shape(limits))
    except ServingError as exc:
        raise HTTPException(exc.status, exc.message) from None
    try:
        body = CheckRequest.model_validate(data)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None
    problem = body.too_large(limits)
    if problem is not None:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, problem)
    return body, replaced


async def _abandon_on_disconnect(request: Request, ticket: Ticket) -> None:
    """Wait for the client to go away (its body has been read), then abandon the ticket."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            ticket.abandon()
            return


@router.post(
    "/v1/check",
    response_model=GuardResult,
    dependencies=[Depends(require_api_key)],
    summary="Score an answer against its contexts and apply the policy",
    responses={
        401: {"description": "missing or invalid API key"},
        413: {"description": "a size or work limit is exceeded (the reply names it)"},
        422: {"description": "malformed JSON or fields"},
        503: {"description": "too many checks in progress, or the guard failed"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": CheckRequest.model_json_schema()}},
        }
    },
)
async def check(request: Request, state: StateDep) -> Response:
    """Run the guard on one turn and return its :class:`~guardrail.models.GuardResult`."""
    core = state.core
    body, replaced = await read_check(request, core.limits)
    work = core.work(body.answer, body.contexts)
    problem = core.work_problem(work)
    if problem is not None:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, problem)
    started = time.perf_counter()
    ticket = core.ticket()
    try:
        with core.slot("checks"):
            watcher = asyncio.create_task(_abandon_on_disconnect(request, ticket))
            try:
                result: GuardResult = await core.run_turn(
                    state.checker.acheck(body.question, body.answer, list(body.contexts)),
                    work=work,
                    ticket=ticket,
                )
            finally:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
    except ServingError as exc:
        if exc.status == 503 and "did not finish" in exc.message:
            state.metrics.stopped.labels("deadline").inc()
        raise HTTPException(exc.status, exc.message, headers=exc.headers or None) from None
    except RequestError as exc:
        raise HTTPException(exc.status, str(exc)) from exc
    except ConfigError as exc:
        _log.error("configuration error in a check", error=repr(exc))
        raise HTTPException(
            status.HTTP_500_INTERNAL_SERVER_ERROR, f"server configuration error: {exc}"
        ) from exc
    except GuardrailError as exc:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, f"{type(exc).__name__}: {exc}"
        ) from exc
    stop = ticket.stop_reason()
    if stop is not None and result.decision.error and stop in result.decision.error:
        state.metrics.stopped.labels(stop.split(":", 1)[0]).inc()
    state.metrics.observe_result(result, time.perf_counter() - started)
    # Serialized once, here: returning the model would make FastAPI validate it again first.
    headers = {REPLACED_HEADER: str(replaced)} if replaced else None
    return Response(result.model_dump_json(), media_type="application/json", headers=headers)


@router.get("/healthz", summary="Liveness and review-queue reachability")
async def healthz(state: StateDep) -> JSONResponse:
    """200 when the review database answers, 503 (with the reason) when it does not."""
    try:
        counts: dict[str, Any] = await run_in_threadpool(state.queue.counts)
    except GuardrailError as exc:
        return JSONResponse({"status": "error", "queue": str(exc)}, status_code=503)
    open_cases = sum(c.get("open", 0) for c in counts.values())
    return JSONResponse({"status": "ok", "open_cases": open_cases})


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request, state: StateDep) -> Response:
    """Prometheus text exposition of this app's registry (behind the API key unless the app
    was built with ``metrics_public=True``)."""
    if not state.metrics_public:
        require_api_key(request, state)
    return Response(state.metrics.render(), media_type=CONTENT_TYPE_LATEST)
