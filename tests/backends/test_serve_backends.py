"""Two ``guardrail serve`` replicas sharing one store: every turn audited once in one chain,
every escalation queued once, and a reviewer's session (kept in the review database) valid on
both. Run on SQLite (two processes, one host) and PostgreSQL (as two hosts would)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from guardrail.audit import verify_trail
from guardrail.queues import ReviewQueue
from guardrail.server.testing import wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
KEY = "replica-test-key-0123456789"
ALICE = "alice-token-abcdefghijklmnop"
BODY = {
    "question": "Can pregnant women take ibuprofen?",
    "answer": "Yes, ibuprofen is safe throughout pregnancy.",
    "contexts": ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def replicas(store, tmp_path) -> Iterator[list[str]]:
    """Two serve processes on 127.0.0.1 with the same --db, --audit-log and session secret."""
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice:{ALICE}\n")
    env = {**os.environ, "GR_KEY": KEY, "GR_SECRET": "s" * 40}
    procs, urls = [], []
    logs = [tmp_path / f"serve-{i}.log" for i in range(2)]
    for log in logs:
        port = free_port()
        argv = [
            sys.executable, "-m", "guardrail", "serve", "--port", str(port),
            "--policy", str(ROOT / "policies" / "default.yaml"),
            "--db", str(store.db), "--audit-log", str(store.audit),
            "--api-key-env", "GR_KEY", "--tokens-file", str(tokens),
            "--session-secret-env", "GR_SECRET",
        ]  # fmt: skip
        with log.open("w") as out:
            procs.append(
                subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT)
            )
        urls.append(f"http://127.0.0.1:{port}")
    try:
        for proc, url, log in zip(procs, urls, logs, strict=True):
            try:
                wait_until_healthy(url, proc)
            except RuntimeError as exc:
                pytest.fail(f"{exc}\n{log.read_text()}")
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


def csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF field on the page"
    return match.group(1)


def test_two_replicas_share_queue_audit_and_sessions(store, replicas):
    def check(i: int) -> str:
        url = replicas[i % 2]
        headers = {"Authorization": f"Bearer {KEY}"}
        r = httpx.post(f"{url}/v1/check", json=BODY, headers=headers, timeout=120)
        assert r.status_code == 200, r.text
        assert r.json()["decision"]["action"] == "escalate"
        return str(r.json()["audit_id"])

    with ThreadPoolExecutor(6) as pool:
        ids = list(pool.map(check, range(24)))
    report = verify_trail(store.audit)
    assert report.ok and report.records == 24
    assert Counter(r["audit_id"] for r in store.records()) == Counter(ids)
    queue = ReviewQueue(store.db)
    assert sorted(c.case_id for c in queue.list()) == sorted(ids)

    # A reviewer logs in on replica A; the same cookie works on replica B (shared sessions).
    with httpx.Client(base_url=replicas[0]) as a, httpx.Client(base_url=replicas[1]) as b:
        page = a.get("/review/login")
        a.post("/review/login", data={"token": ALICE, "csrf_token": csrf(page.text)})
        b.cookies.update(a.cookies)
        page = b.get(f"/review/cases/{ids[0]}")
        assert page.status_code == 200 and "Signed in as <strong>alice</strong>" in page.text
        b.post(f"/review/cases/{ids[0]}/claim", data={"csrf_token": csrf(page.text)})
        page = a.get(f"/review/cases/{ids[0]}")
        a.post(
            f"/review/cases/{ids[0]}/resolve",
            data={"csrf_token": csrf(page.text), "outcome": "reject", "note": "unsafe"},
        )
        assert queue.get(ids[0]).outcome == "rejected"
        # Logging out on A ends the session on B too.
        page = a.get("/review")
        a.post("/review/logout", data={"csrf_token": csrf(page.text)})
        assert b.get("/review", follow_redirects=False).status_code == 303
    report = verify_trail(store.audit)
    assert report.ok and report.records == 25
    assert store.records()[-1]["resolution"]["reviewer"] == "alice"
