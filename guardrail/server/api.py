"""The JSON API: ``POST /v1/check`` and ``GET /healthz``."""

from __future__ import annotations

import time

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from guardrail.exceptions import ConfigError, GuardrailError
from guardrail.models import GuardResult
from guardrail.server.auth import require_api_key
from guardrail.server.limits import RequestLimits

__all__ = ["CheckRequest", "router"]

router = APIRouter()


class CheckRequest(BaseModel):
    """One RAG turn to check. Sizes are checked against the server's ``RequestLimits``."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    answer: str
    contexts: list[str] = Field(default_factory=list)

    def too_large(self, limits: RequestLimits) -> str | None:
        """What breaks a size limit, if anything (one line for the 413 reply)."""
        checks = [
            (len(self.question), limits.max_question_chars, "question"),
            (len(self.answer), limits.max_answer_chars, "answer"),
            (len(self.contexts), limits.max_contexts, "number of contexts"),
            (max(map(len, self.contexts), default=0), limits.max_context_chars, "a context"),
            (sum(map(len, self.contexts)), limits.max_total_context_chars, "all contexts"),
        ]
        for size, limit, what in checks:
            if size > limit:
                return f"{what}: {size} is over the limit of {limit}"
        return None


@router.post(
    "/v1/check",
    response_model=GuardResult,
    dependencies=[Depends(require_api_key)],
    summary="Score an answer against its contexts and apply the policy",
    responses={401: {"description": "missing or invalid API key"}},
)
async def check(body: CheckRequest, request: Request) -> Response:
    """Run the guard on one turn and return its :class:`~guardrail.models.GuardResult`."""
    state = request.app.state.guardrail
    problem = body.too_large(state.limits)
    if problem is not None:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, problem)
    if state.in_flight >= state.limits.max_in_flight:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            f"busy: {state.in_flight} checks in progress; retry shortly",
            headers={"Retry-After": "1"},
        )
    started = time.perf_counter()
    state.in_flight += 1
    try:
        # Scoring is CPU work (offline judge, classifier, localizer): it runs on the scoring
        # thread's own event loop, so this loop keeps answering /healthz and small requests.
        result: GuardResult = await state.scoring.submit(
            state.checker.acheck(body.question, body.answer, list(body.contexts))
        )
    except ConfigError as exc:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc)) from exc
    except GuardrailError as exc:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, f"{type(exc).__name__}: {exc}"
        ) from exc
    finally:
        state.in_flight -= 1
    state.metrics.observe_result(result, time.perf_counter() - started)
    # Serialized once, here: returning the model would make FastAPI validate it again first.
    return Response(result.model_dump_json(), media_type="application/json")


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
