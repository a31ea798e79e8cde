"""Read an audit trail (JSON Lines or PostgreSQL) and, optionally, a review database, and
return the report's figures as one JSON-ready mapping."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from guardrail.audit.record import utc_now_iso
from guardrail.audit.trail import trail_source, verify_trail
from guardrail.exceptions import AuditError
from guardrail.report.audit_figures import AuditFigures
from guardrail.report.parallel import read_jsonl
from guardrail.report.review_figures import read_cases, review_figures
from guardrail.storage import Target, describe_target, is_postgres_url

__all__ = ["build_report"]


def build_report(
    audit: Target,
    *,
    review_db: Target | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    verify: bool = False,
    workers: int | None = None,
) -> dict[str, Any]:
    """The figures of the trail at ``audit`` (a path or a ``postgresql://`` URL) for records
    whose time is in ``[since, until)``; with ``review_db``, the review queue's figures for
    cases escalated in the same window; with ``verify``, the hash chain's check as well.
    A large log file is read by ``workers`` processes (default: one per CPU)."""
    if not is_postgres_url(audit) and not Path(audit).is_file():
        raise AuditError(f"audit log not found: {audit}")
    if is_postgres_url(audit):
        figures = AuditFigures(since=since, until=until)
        with trail_source(audit).lines() as lines:
            for raw in lines:
                figures.add_line(raw)
    else:
        figures = read_jsonl(Path(audit), since=since, until=until, workers=workers)
    report: dict[str, Any] = {
        "generated_at": utc_now_iso(),
        "source": {
            "audit": describe_target(audit),
            "review_db": None if review_db is None else describe_target(review_db),
            "since": since.isoformat() if since else None,
            "until": until.isoformat() if until else None,
        },
        "chain": None,
        "audit": figures.finish(),
        "reviews": None,
    }
    if verify:
        result = verify_trail(audit)
        report["chain"] = {
            "ok": result.ok,
            "records": result.records,
            "head_hash": result.head_hash,
            "detail": result.describe(),
        }
    if review_db is not None:
        topics = {case_id: turn[0] for case_id, turn in figures.escalated.items()}
        cases = read_cases(review_db, topics)
        report["reviews"] = review_figures(cases, since=since, until=until)
    return report
