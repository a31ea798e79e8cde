"""The review web page: log in with a reviewer token, pick a case, claim it, resolve it.

Server-rendered (Jinja2), no JavaScript needed. Every state change is a POST form with a CSRF
token, answered with a 303 redirect (post/redirect/get) so reloading never resubmits. Errors
from the queue (someone else claimed it first, ...) come back as a one-line flash message.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from guardrail.models import ReviewOutcome
from guardrail.queues.review_queue import CaseNotFoundError, ReviewError, StoredCase
from guardrail.server import render
from guardrail.server.auth import check_csrf, client_address, csrf_token, logout
from guardrail.server.state import ServerState, StateDep

__all__ = ["router"]

router = APIRouter(prefix="/review", include_in_schema=False)

_OUTCOMES: dict[str, ReviewOutcome] = {
    "approve": "approved",
    "edit": "edited",
    "reject": "rejected",
}
#: The colour legend: (bucket, lowest score in it).
_LEGEND = tuple((b, b / render.BUCKETS) for b in range(render.BUCKETS))


def _page(
    request: Request, state: ServerState, name: str, context: dict[str, Any], code: int = 200
) -> Response:
    base = {
        "reviewer": state.tokens.current(request, state.sessions),
        "csrf_token": csrf_token(request),
        "flash": request.session.pop("flash", None),
    }
    response: Response = state.templates.TemplateResponse(
        request, name, {**base, **context}, status_code=code
    )
    return response


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=status.HTTP_303_SEE_OTHER)


def _case_url(case_id: str) -> str:
    return f"/review/cases/{quote(case_id, safe='')}"


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, state: StateDep) -> Response:
    if state.tokens.current(request, state.sessions):
        return _redirect("/review")
    return _page(request, state, "login.html", {})


@router.post("/login", response_class=HTMLResponse)
def login(
    request: Request,
    state: StateDep,
    token: Annotated[str, Form()] = "",
    reviewer: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form(alias="csrf_token")] = "",
) -> Response:
    check_csrf(request, csrf)
    client = client_address(request)
    named = reviewer.strip() or None  # a login may name its reviewer: counted per reviewer
    wait = state.throttle.attempt(client, named)
    if wait is not None:
        response = _page(
            request,
            state,
            "login.html",
            {"error": f"Too many failed logins; try again in {wait} s."},
            status.HTTP_429_TOO_MANY_REQUESTS,
        )
        response.headers["Retry-After"] = str(wait)
        return response
    if state.tokens.login(request, token, state.sessions, named) is None:
        return _page(
            request,
            state,
            "login.html",
            {"error": "That reviewer token is not valid."},
            status.HTTP_401_UNAUTHORIZED,
        )
    state.throttle.succeeded(client, named)
    return _redirect("/review")


@router.post("/logout")
def do_logout(
    request: Request, state: StateDep, csrf: Annotated[str, Form(alias="csrf_token")] = ""
) -> Response:
    check_csrf(request, csrf)
    logout(request, state.sessions)
    return _redirect("/review/login")


@router.get("", response_class=HTMLResponse)
def queue_page(request: Request, state: StateDep, queue: str | None = None) -> Response:
    reviewer = state.tokens.current(request, state.sessions)
    if reviewer is None:
        return _redirect("/review/login")
    open_cases: list[StoredCase] = state.queue.list(queue=queue, state="open")
    mine = [c for c in state.queue.list(queue=queue, state="claimed") if c.reviewer == reviewer]
    by_queue: dict[str, list[StoredCase]] = {}
    for c in open_cases:
        by_queue.setdefault(c.queue, []).append(c)
    return _page(
        request,
        state,
        "queue.html",
        {
            "by_queue": dict(sorted(by_queue.items())),
            "mine": mine,
            "counts": state.queue.counts(),
            "selected": queue,
            "case_url": _case_url,
        },
    )


@router.get("/cases/{case_id}", response_class=HTMLResponse)
def case_page(request: Request, state: StateDep, case_id: str) -> Response:
    if state.tokens.current(request, state.sessions) is None:
        return _redirect("/review/login")
    try:
        stored: StoredCase = state.queue.get(case_id)
    except CaseNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    case = stored.case
    return _page(
        request,
        state,
        "case.html",
        {
            "stored": stored,
            "case": case,
            "segments": render.answer_segments(case.answer, case.report),
            "factoids": render.factoid_views(case.answer, case.report),
            "resolved": render.resolved_views(case.answer, case.report),
            "passages": render.passage_views(case.contexts, case.report),
            "buckets": _LEGEND,
            "case_url": _case_url,
        },
    )


def _act(request: Request, state: ServerState, csrf: str) -> str:
    check_csrf(request, csrf)
    reviewer = state.tokens.current(request, state.sessions)
    if reviewer is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "log in first")
    return reviewer


@router.post("/cases/{case_id}/claim")
def claim(
    request: Request,
    state: StateDep,
    case_id: str,
    csrf: Annotated[str, Form(alias="csrf_token")] = "",
) -> Response:
    reviewer = _act(request, state, csrf)
    try:
        state.queue.claim(case_id, reviewer)
    except CaseNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except ReviewError as exc:
        request.session["flash"] = str(exc)
    return _redirect(_case_url(case_id))


@router.post("/cases/{case_id}/resolve")
def resolve(
    request: Request,
    state: StateDep,
    case_id: str,
    outcome: Annotated[str, Form()],
    final_answer: Annotated[str, Form()] = "",
    note: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form(alias="csrf_token")] = "",
) -> Response:
    reviewer = _act(request, state, csrf)
    chosen = _OUTCOMES.get(outcome)
    if chosen is None:
        raise HTTPException(422, f"unknown outcome {outcome!r}")
    try:
        text = final_answer.replace("\r\n", "\n").strip() if chosen == "edited" else None
        res = state.queue.resolve(case_id, chosen, text, note.strip() or None, reviewer=reviewer)
    except CaseNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except ReviewError as exc:
        request.session["flash"] = str(exc)
        return _redirect(_case_url(case_id))
    state.metrics.resolutions.labels(res.queue, res.outcome).inc()
    request.session["flash"] = f"Case {case_id} {res.outcome}."
    return _redirect("/review")
