"""POST /v1/check, /healthz, /metrics and /docs against a real uvicorn server on loopback."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from guardrail.exceptions import ConfigError, RequestError, ScoringError
from guardrail.models import GuardResult
from guardrail.server import create_app
from guardrail.server.samples import sample_report
from guardrail.server.testing import serve_in_thread

BODY = {"question": "How much?", "answer": "8 g a day.", "contexts": ["Max 4 g a day."]}


@pytest.fixture
def bearer(api_key) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_healthz_reports_open_cases(live):
    """/healthz answers 200 with the number of open cases in the queue."""
    r = httpx.get(f"{live}/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "open_cases": 2}


def test_check_requires_api_key(live, checker, api_key):
    """Without a key or with a wrong one: 401 and the checker is never called."""
    r = httpx.post(f"{live}/v1/check", json=BODY)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    r = httpx.post(f"{live}/v1/check", json=BODY, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    r = httpx.post(f"{live}/v1/check", json=BODY, headers={"X-API-Key": api_key + "x"})
    assert r.status_code == 401
    assert checker.seen == []


@pytest.mark.parametrize(("header", "prefix"), [("Authorization", "Bearer "), ("X-API-Key", "")])
def test_check_returns_guard_result(live, checker, api_key, header, prefix):
    """With a valid key (either header) the body is the checker's GuardResult as JSON."""
    r = httpx.post(f"{live}/v1/check", json=BODY, headers={header: prefix + api_key})
    assert r.status_code == 200, r.text
    result = GuardResult.model_validate(r.json())
    assert result.decision.action == "escalate" and result.original_answer == "8 g a day."
    assert result.report == sample_report()
    assert checker.seen == [("How much?", "8 g a day.", ["Max 4 g a day."])]


@pytest.mark.parametrize(
    "body",
    [
        {"answer": "x"},
        {"question": "", "answer": "x"},
        {"question": "q", "answer": "x", "contexts": "not a list"},
        {"question": "q", "answer": "x", "extra": 1},
    ],
)
def test_bad_input_is_422(live, checker, bearer, body):
    """Missing, empty, mistyped or unknown fields are rejected with 422."""
    r = httpx.post(f"{live}/v1/check", json=body, headers=bearer)
    assert r.status_code == 422 and checker.seen == []


def test_oversized_input_is_413(live, checker, bearer):
    """Too many contexts (over the default RequestLimits) is 413, naming the limit."""
    body = {"question": "q", "answer": "x", "contexts": ["c"] * 201}
    r = httpx.post(f"{live}/v1/check", json=body, headers=bearer)
    assert r.status_code == 413 and checker.seen == []
    assert r.json()["detail"] == "number of contexts: 201 is over the limit of 200 (--max-contexts)"


@pytest.mark.parametrize(
    ("error", "status", "text"),
    [(ScoringError("judge unreachable"), 503, "ScoringError: judge unreachable"),
     (ConfigError("bad policy"), 500, "server configuration error: bad policy"),
     (RequestError("question too vague", status=422), 422, "question too vague")],
)  # fmt: skip
def test_checker_errors_map_to_status_codes(queue, failing_checker, error, status, text):
    """A scoring failure is a 503, a configuration error a 400 — each with its message."""
    app = create_app(
        checker=failing_checker(error=error), queue=queue, api_key=None, reviewer_tokens={},
        review_ui=False,
    )  # fmt: skip
    with serve_in_thread(app) as base:
        r = httpx.post(f"{base}/v1/check", json=BODY)  # api_key=None: no auth
    assert r.status_code == status and r.json()["detail"] == text


def test_metrics_count_decisions_latency_and_tokens(live, bearer):
    """After two checks /metrics shows decisions by action/topic, judge latencies and tokens."""
    for _ in range(2):
        assert httpx.post(f"{live}/v1/check", json=BODY, headers=bearer).status_code == 200
    r = httpx.get(f"{live}/metrics", headers=bearer)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    m = samples(r.text)
    report = sample_report()
    assert m[("guardrail_decisions_total", (("action", "escalate"), ("topic", "medical")))] == 2
    verify_calls = sum(1 for c in report.calls if c.stage == "verify")
    assert m[("guardrail_judge_call_seconds_count", (("stage", "verify"),))] == 2 * verify_calls
    prompt = sum(c.prompt_tokens for c in report.calls)
    assert m[("guardrail_judge_tokens_total", (("kind", "prompt"),))] == 2 * prompt
    assert m[("guardrail_check_seconds_count", ())] == 2
    key = ("guardrail_http_requests_total",
           (("method", "POST"), ("route", "/v1/check"), ("status", "200")))  # fmt: skip
    assert m[key] == 2


def test_each_app_has_its_own_registry(queue, checker):
    """Two apps in one process do not share or clash on metrics."""
    a = create_app(checker=checker, queue=queue, api_key=None, reviewer_tokens={}, review_ui=False)
    b = create_app(checker=checker, queue=queue, api_key=None, reviewer_tokens={}, review_ui=False)
    with serve_in_thread(a) as base_a, serve_in_thread(b) as base_b:
        httpx.post(f"{base_a}/v1/check", json=BODY)
        text_b = httpx.get(f"{base_b}/metrics").text
    assert 'guardrail_decisions_total{action="escalate"' not in text_b


def test_openapi_docs_are_served(live):
    """/docs serves Swagger UI and the schema documents POST /v1/check."""
    assert "swagger" in httpx.get(f"{live}/docs").text.lower()
    schema = httpx.get(f"{live}/openapi.json").json()
    assert "post" in schema["paths"]["/v1/check"]
    assert "/review" not in schema["paths"]


def test_review_ui_requires_a_token(queue, checker):
    """create_app refuses to build the review UI without any reviewer token."""
    with pytest.raises(ConfigError, match="at least one reviewer token"):
        create_app(checker=checker, queue=queue, api_key=None, reviewer_tokens={})
