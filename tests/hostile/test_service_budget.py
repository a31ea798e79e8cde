"""The service under a real Guard: work budget, deadline, abandonment, lanes, odd text.

Every turn that reaches scoring ends with an audit record — scored, stopped by its deadline,
or abandoned by its client — and a sensitive one is escalated either way.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from guardrail.guard import Guard
from guardrail.judges.base import JudgeRequest, JudgeResponse
from guardrail.judges.local import LocalJudge
from guardrail.models import GuardResult
from guardrail.queues import SQLiteQueue
from guardrail.server import create_app
from guardrail.server.testing import serve_in_thread
from guardrail.serving.limits import RequestLimits
from tests.server.conftest import API_KEY, FakeChecker

ROOT = Path(__file__).resolve().parents[2]
KEY = {"Authorization": f"Bearer {API_KEY}"}
SENSITIVE = {
    "question": "Can pregnant women take ibuprofen?",
    "answer": "Yes, ibuprofen is safe throughout pregnancy.",
    "contexts": ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
}


class SlowJudge:
    """The offline judge, each call after ``delay_s`` of waiting (a slow model server)."""

    name = "slow-local"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.inner = LocalJudge()
        self.calls = 0

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        self.calls += 1
        await asyncio.sleep(self.delay_s)
        return await self.inner.complete(request)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def guard_app(tmp_path: Path, judge: object | None = None, **limits: int) -> tuple[object, Path]:
    audit = tmp_path / "audit.jsonl"
    queue = SQLiteQueue(tmp_path / "review.sqlite3")
    guard = Guard.from_yaml(
        ROOT / "policies" / "default.yaml",
        judge=judge,  # type: ignore[arg-type]
        audit_log=audit,
        review_db=tmp_path / "review.sqlite3",
        fallback_log=tmp_path / "fallback.jsonl",
    )
    app = create_app(
        checker=guard,
        queue=queue,
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
        limits=RequestLimits(**limits),
    )
    return app, audit


def test_the_deadline_ends_scoring_with_the_on_error_decision_audited(tmp_path):
    """A judge slower than the deadline: the reply comes at the deadline, decided by the
    sensitive topic's on_error rule (escalate), with an audit record and a review case."""
    judge = SlowJudge(delay_s=5.0)
    app, audit = guard_app(tmp_path, judge, max_check_seconds=1)
    with serve_in_thread(app) as url:
        started = time.monotonic()
        r = httpx.post(f"{url}/v1/check", json=SENSITIVE, headers=KEY, timeout=30)
        took = time.monotonic() - started
    assert r.status_code == 200, r.text
    decision = r.json()["decision"]
    assert "deadline" in decision["error"] and decision["action"] == "escalate"
    assert took < 4.0
    (turn,) = [x for x in records(audit) if x["kind"] == "turn"]
    assert "deadline" in turn["decision"]["error"]
    assert SQLiteQueue(tmp_path / "review.sqlite3").get(r.json()["audit_id"])


def test_judge_calls_made_before_a_deadline_stop_are_in_the_audit_record(tmp_path):
    """Calls that finished before scoring was stopped were paid for: the record lists them."""
    judge = SlowJudge(delay_s=0.6)  # decompose ends at 0.6 s, the mutations would at 1.2 s
    app, audit = guard_app(tmp_path, judge, max_check_seconds=1)
    with serve_in_thread(app) as url:
        r = httpx.post(f"{url}/v1/check", json=SENSITIVE, headers=KEY, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["decision"]["error"].startswith("deadline")
    (turn,) = [x for x in records(audit) if x["kind"] == "turn"]
    stages = [c["stage"] for c in turn["judge_calls"]]
    assert "decompose" in stages  # the first stage finished well before the deadline
    assert 0 < len(stages) <= judge.calls


def test_large_checks_queued_past_their_deadline_still_get_a_decision(tmp_path):
    """Six large checks, two scoring slots: those whose deadline passes while they wait are
    let in at once and decided by on_error — every one a 200 with a record, none a 503."""
    judge = SlowJudge(delay_s=0.6)
    app, audit = guard_app(tmp_path, judge, max_check_seconds=2, small_work=0)
    with serve_in_thread(app) as url:
        replies: list[httpx.Response] = []

        def one() -> None:
            replies.append(httpx.post(f"{url}/v1/check", json=SENSITIVE, headers=KEY, timeout=60))

        threads = [threading.Thread(target=one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert [r.status_code for r in replies] == [200] * 6
    errors = [r.json()["decision"]["error"] or "" for r in replies]
    assert all(e == "" or e.startswith("deadline") for e in errors), errors
    assert sum(e.startswith("deadline") for e in errors) >= 4, errors  # all that had to wait
    turns = [x for x in records(audit) if x["kind"] == "turn"]
    assert sorted(t["audit_id"] for t in turns) == sorted(r.json()["audit_id"] for r in replies)


def test_a_client_that_disconnects_abandons_its_scoring_audited(tmp_path):
    """The client gives up after 0.5 s: scoring stops at the next judge call, and the turn is
    audited as abandoned (not scored for minutes, not lost)."""
    judge = SlowJudge(delay_s=0.5)
    app, audit = guard_app(tmp_path, judge, max_check_seconds=60)
    with serve_in_thread(app) as url:
        with pytest.raises(httpx.TimeoutException):
            httpx.post(f"{url}/v1/check", json=SENSITIVE, headers=KEY, timeout=0.5)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if audit.exists() and any(x["kind"] == "turn" for x in records(audit)):
                break
            time.sleep(0.1)
        calls_when_stopped = judge.calls
        time.sleep(1.5)
        metrics = httpx.get(f"{url}/metrics", headers=KEY).text
    (turn,) = [x for x in records(audit) if x["kind"] == "turn"]
    assert turn["decision"]["error"].startswith("abandoned")
    assert judge.calls == calls_when_stopped  # nothing scored after the record
    assert 'guardrail_checks_stopped_total{reason="abandoned"} 1.0' in metrics


def test_a_turn_over_the_work_budget_is_refused_naming_the_limit(tmp_path):
    checker = FakeChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
        limits=RequestLimits(max_work=10_000),
    )
    body = {"question": "q", "answer": "One. Two. Three.", "contexts": ["x" * 4_000]}
    with serve_in_thread(app) as url:
        r = httpx.post(f"{url}/v1/check", json=body, headers=KEY, timeout=10)
    assert r.status_code == 413 and checker.seen == []
    assert "estimated scoring work 12160" in r.json()["detail"] and "--max-work" in r.text


def test_default_limits_refuse_the_one_megabyte_starvation_request(tmp_path):
    """200 distinct sentences against ten 99 KB contexts (inside every size limit): 413."""
    checker = FakeChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
    )
    answer = " ".join(f"Fact number {i} is about item {i}." for i in range(200))
    body = {"question": "q", "answer": answer, "contexts": ["lorem ipsum " * 8_250] * 10}
    with serve_in_thread(app) as url:
        r = httpx.post(f"{url}/v1/check", json=body, headers=KEY, timeout=30)
    assert r.status_code == 413 and checker.seen == []


class ThreadHoggingChecker(FakeChecker):
    """A long answer holds its scoring thread (as CPU-bound scoring does) until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.big_started = threading.Event()

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult:
        if len(answer) > 1_000:
            self.big_started.set()
            self.release.wait(20)  # blocks this thread's event loop
        return await super().acheck(question, answer, contexts)


def test_small_checks_are_answered_while_a_large_one_holds_its_thread(tmp_path):
    checker = ThreadHoggingChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
    )
    big = {"question": "q", "answer": "A long answer. " * 200, "contexts": ["c" * 2_000]}
    small = {"question": "q", "answer": "Short.", "contexts": ["c"]}
    with serve_in_thread(app) as url:
        worker = threading.Thread(
            target=lambda: httpx.post(f"{url}/v1/check", json=big, headers=KEY, timeout=30)
        )
        worker.start()
        try:
            assert checker.big_started.wait(10)
            r = httpx.post(f"{url}/v1/check", json=small, headers=KEY, timeout=5)
            assert r.status_code == 200
        finally:
            checker.release.set()
            worker.join(30)


@pytest.mark.parametrize(
    ("item", "status"),
    [(b"1", 413), (b"{}", 413), (b"[]", 413), (b'""', 413), (b'"x"', 413)],
)
def test_a_body_of_millions_of_tiny_items_is_refused_before_parsing(tmp_path, item, status):
    checker = FakeChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
    )
    n = (3_900_000 - 60) // (len(item) + 1)
    body = b'{"question": "q", "answer": "a", "contexts": [' + b",".join([item] * n) + b"]}"
    with serve_in_thread(app) as url:
        r = httpx.post(
            f"{url}/v1/check",
            content=body,
            headers={**KEY, "Content-Type": "application/json"},
            timeout=30,
        )
        health = httpx.get(f"{url}/healthz", timeout=5)
    assert r.status_code == status and checker.seen == []
    assert "--max-contexts" in r.json()["detail"]
    assert health.status_code == 200


def test_deeply_nested_json_is_a_422(tmp_path):
    checker = FakeChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
    )
    body = b'{"question": "q", "answer": "a", "contexts": ' + b"[" * 100_000 + b"]" * 100_000
    with serve_in_thread(app) as url:
        r = httpx.post(
            f"{url}/v1/check",
            content=body + b"}",
            headers={**KEY, "Content-Type": "application/json"},
            timeout=30,
        )
    assert r.status_code == 422 and checker.seen == []


@pytest.mark.parametrize("where", ["answer", "contexts"])
def test_a_lone_surrogate_never_loses_a_sensitive_turn(tmp_path, where):
    """A surrogate in the answer or a context (an emoji cut in half): 200, one audit record,
    one review case — the turn is scored and escalated like any other."""
    app, audit = guard_app(tmp_path)
    body = dict(SENSITIVE)
    if where == "answer":
        body["answer"] = SENSITIVE["answer"] + " \ud83d"
    else:
        body["contexts"] = [SENSITIVE["contexts"][0] + " \ud83d"]
    raw = json.dumps(body).encode()  # ensure_ascii: the surrogate travels as \\ud83d
    with serve_in_thread(app) as url:
        r = httpx.post(
            f"{url}/v1/check",
            content=raw,
            headers={**KEY, "Content-Type": "application/json"},
            timeout=60,
        )
    assert r.status_code == 200, r.text
    assert r.json()["decision"]["action"] == "escalate" and r.json()["decision"]["error"] is None
    (turn,) = [x for x in records(audit) if x["kind"] == "turn"]
    assert turn["audit_id"] == r.json()["audit_id"]
    stored = SQLiteQueue(tmp_path / "review.sqlite3").get(r.json()["audit_id"])
    assert "\ufffd" in (stored.case.answer if where == "answer" else stored.case.contexts[0])


@pytest.fixture
def keyed_live(tmp_path) -> Iterator[tuple[str, FakeChecker]]:
    checker = FakeChecker()
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key="clé-secrète-0123456789",
        reviewer_tokens={},
        review_ui=False,
    )
    with serve_in_thread(app) as url:
        yield url, checker


def test_a_non_ascii_api_key_matches_when_sent_as_utf8(keyed_live):
    url, checker = keyed_live
    key = "clé-secrète-0123456789".encode()
    body = {"question": "q", "answer": "a"}
    r = httpx.post(f"{url}/v1/check", json=body, headers=[(b"X-API-Key", key)], timeout=10)
    assert r.status_code == 200 and len(checker.seen) == 1
    wrong = b"cle-secrete-0123456789"
    r = httpx.post(f"{url}/v1/check", json=body, headers=[(b"X-API-Key", wrong)], timeout=10)
    assert r.status_code == 401


def test_metrics_need_the_api_key_and_count_a_401_under_its_route(keyed_live):
    url, _ = keyed_live
    key = [(b"X-API-Key", "clé-secrète-0123456789".encode())]
    assert httpx.post(f"{url}/v1/check", json={"question": "q", "answer": "a"}).status_code == 401
    assert httpx.get(f"{url}/metrics").status_code == 401
    text = httpx.get(f"{url}/metrics", headers=key).text
    assert 'route="/v1/check",status="401"' in text
    assert 'route="unmatched"' not in text


def test_metrics_can_be_made_public(tmp_path):
    app = create_app(
        checker=FakeChecker(),
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
        metrics_public=True,
    )
    with serve_in_thread(app) as url:
        assert httpx.get(f"{url}/metrics").status_code == 200
        assert (
            httpx.post(f"{url}/v1/check", json={"question": "q", "answer": "a"}).status_code == 401
        )
