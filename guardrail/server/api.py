"""The JSON API: ``POST /v1/check`` and ``GET /healthz``."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from guardrail.exceptions import ConfigError, GuardrailError
from guardrail.models import GuardResult
from guardrail.server.auth import require_api_key

__all__ = ["CheckRequest", "router"]

router = APIRouter()


class CheckRequest(BaseModel):
    """One RAG turn to check. Size limits keep a single request from exhausting the judge."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=20_000)
    answer: str = Field(max_length=100_000)
    contexts: list[Annotated[str, Field(max_length=100_000)]] = Field(
        default_factory=list, max_length=200
    )


@router.post(
    "/v1/check",
    response_model=GuardResult,
    dependencies=[Depends(require_api_key)],
    summary="Score an answer against its contexts and apply the policy",
    responses={401: {"description": "missing or invalid API key"}},
)
async def check(body: CheckRequest, request: Request) -> GuardResult:
    """Run the guard on one turn and return its :class:`~guardrail.models.GuardResult`."""
    state = request.app.state.guardrail
    started = time.perf_counter()
    try:
        result: GuardResult = await state.checker.acheck(
            body.question, body.answer, list(body.contexts)
        )
    except ConfigError as exc:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc)) from exc
    except GuardrailError as exc:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, f"{type(exc).__name__}: {exc}"
        ) from exc
    state.metrics.observe_result(result, time.perf_counter() - started)
    return result


@router.get("/healthz", summary="Liveness and review-queue reachability")
async def healthz(request: Request) -> JSONResponse:
    """200 when the review database answers, 503 (with the reason) when it does not."""
    state = request.app.state.guardrail
    try:
        counts = await run_in_threadpool(state.queue.counts)
    except GuardrailError as exc:
        return JSONResponse({"status": "error", "queue": str(exc)}, status_code=503)
    open_cases = sum(c.get("open", 0) for c in counts.values())
    return JSONResponse({"status": "ok", "open_cases": open_cases})
