"""`guardrail serve` wiring with the real Guard: a checked answer reaches the review queue."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from guardrail.audit import verify_log
from guardrail.cli.serve import build_checker
from guardrail.queues import SQLiteQueue
from guardrail.server import create_app
from guardrail.server.testing import serve_in_thread

ROOT = Path(__file__).resolve().parents[2]


def test_check_escalates_into_the_queue_the_review_page_reads(tmp_path):
    """POST /v1/check with the default policy: escalated, queued in --db, audited."""
    db, log = tmp_path / "review.sqlite3", tmp_path / "audit.jsonl"
    checker = build_checker(ROOT / "policies" / "default.yaml", db=db, audit_log=log)
    queue = SQLiteQueue(db)
    app = create_app(
        checker=checker, queue=queue, api_key="k" * 20, reviewer_tokens={}, review_ui=False
    )
    body = {
        "question": "Can pregnant women take ibuprofen for back pain?",
        "answer": "Yes, ibuprofen is safe throughout pregnancy.",
        "contexts": ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
    }
    with serve_in_thread(app) as url:
        response = httpx.post(
            f"{url}/v1/check", json=body, headers={"Authorization": "Bearer " + "k" * 20}
        )
    assert response.status_code == 200
    result = response.json()
    assert result["decision"]["action"] == "escalate"
    assert queue.get(result["audit_id"]).queue == "clinical-review"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["audit_id"] == result["audit_id"] and verify_log(log).ok
