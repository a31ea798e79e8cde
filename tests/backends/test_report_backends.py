"""``guardrail report`` reads a PostgreSQL trail and review queue as it reads files."""

from __future__ import annotations

from guardrail.audit import open_audit_log
from guardrail.policy import load_policy
from guardrail.queues import ReviewQueue
from guardrail.report import build_report, write_history
from tests.backends.conftest import Store
from tests.report.conftest import POLICY


def test_report_figures_on_either_backend(store: Store) -> None:
    """The same generated history gives the figures the generator counted, on both backends."""
    log = open_audit_log(store.audit, fsync=False)
    truth = write_history(log, load_policy(POLICY), turns=80, queue=ReviewQueue(store.db), seed=5)
    report = build_report(store.audit, review_db=store.db, verify=True)
    topics = report["audit"]["topics"]
    assert {name: t["actions"] for name, t in topics.items()} == truth.decisions
    assert report["chain"]["ok"] is True
    assert report["reviews"]["all"]["cases"] == truth.escalated
    assert report["reviews"]["all"]["outcomes"]["approved"] == truth.overturned
