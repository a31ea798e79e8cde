"""The review queue's figures: how long cases wait, how long reviewers take, how often they
overturn the guard — per queue and per topic.

Waiting is ``claimed_at - enqueued_at``, handling ``resolved_at - claimed_at``. An *overturn*
is a case resolved as ``approved``: the reviewer kept the answer the guard held back. Open and
claimed cases are counted with the age of the oldest one at the end of the window, because a
case that nobody has claimed is exactly what an operator must see.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from typing import Any, NamedTuple

from guardrail.report.audit_figures import parse_time, percentiles
from guardrail.storage import Target

__all__ = ["CaseRow", "read_cases", "review_figures"]

#: Case ids per query when topics are read from payloads.
_BATCH = 500


class CaseRow(NamedTuple):
    """The columns of a review case the report needs (not its payload: a case holds the whole
    score report, and a report over tens of thousands of cases must not load them all)."""

    case_id: str
    queue: str
    topic: str
    created_at: str
    enqueued_at: str
    state: str
    reviewer: str | None
    claimed_at: str | None
    resolved_at: str | None
    outcome: str | None


def read_cases(target: Target, topics: Mapping[str, str] | None = None) -> Iterator[CaseRow]:
    """Every case of the review database at ``target``, oldest first.

    A case's topic is taken from ``topics`` (``case_id -> topic``, e.g. from the audit log's
    turn records) when it is there; the others are read from the case payloads by the
    database's own JSON functions, a few hundred at a time. Decoding tens of thousands of
    payloads only for their topic would cost a report more than all its other review figures.
    """
    from guardrail.queues.review_queue import POSTGRES_SCHEMA, SQLITE_SCHEMA
    from guardrail.storage import open_database

    known = topics or {}
    db = open_database(target, sqlite=SQLITE_SCHEMA, postgres=POSTGRES_SCHEMA, what="review queue")
    columns = "case_id, queue, created_at, enqueued_at, state, reviewer, claimed_at, resolved_at"
    with db.read() as conn:
        rows = conn.execute(f"SELECT {columns}, outcome FROM cases ORDER BY created_at").fetchall()
    missing = [r["case_id"] for r in rows if r["case_id"] not in known]
    found = dict(known)
    if missing:
        topic = (
            "payload::json -> 'decision' ->> 'topic'"
            if db.backend == "postgresql"
            else "json_extract(payload, '$.decision.topic')"
        )
        with db.read() as conn:
            for i in range(0, len(missing), _BATCH):
                batch = missing[i : i + _BATCH]
                marks = ", ".join("?" for _ in batch)
                for r in conn.execute(
                    f"SELECT case_id, {topic} AS topic FROM cases WHERE case_id IN ({marks})", batch
                ):
                    found[r["case_id"]] = r["topic"]
    for r in rows:
        yield CaseRow(
            r["case_id"], r["queue"], str(found.get(r["case_id"], "?")), r["created_at"],
            r["enqueued_at"], r["state"], r["reviewer"], r["claimed_at"], r["resolved_at"],
            r["outcome"],
        )  # fmt: skip


def _minutes(a: str | None, b: str | None) -> float | None:
    if a is None or b is None:
        return None
    return (parse_time(b) - parse_time(a)).total_seconds() / 60


def _group(cases: list[CaseRow], now: datetime) -> dict[str, Any]:
    states = Counter(c.state for c in cases)
    resolved = [c for c in cases if c.state == "resolved"]
    outcomes = Counter(c.outcome for c in resolved)
    waits = [m for c in cases if (m := _minutes(c.enqueued_at, c.claimed_at)) is not None]
    handling = [m for c in resolved if (m := _minutes(c.claimed_at, c.resolved_at)) is not None]
    pending = [parse_time(c.enqueued_at) for c in cases if c.state != "resolved"]
    oldest = (now - min(pending)).total_seconds() / 3600 if pending else None
    return {
        "cases": len(cases),
        "states": {s: states.get(s, 0) for s in ("open", "claimed", "resolved")},
        "outcomes": {o: outcomes.get(o, 0) for o in ("approved", "edited", "rejected")},
        "overturn_rate": round(outcomes["approved"] / len(resolved), 4) if resolved else None,
        "wait_minutes": percentiles(waits),
        "handling_minutes": percentiles(handling),
        "oldest_pending_hours": None if oldest is None else round(oldest, 2),
    }


def review_figures(
    cases: Iterable[CaseRow],
    *,
    since: datetime | None = None,
    until: datetime | None = None,
) -> dict[str, Any]:
    """Figures of the cases escalated in ``[since, until)`` (all when unset); ages are
    measured at ``until`` (default: now)."""
    now = until or datetime.now(timezone.utc)
    kept: list[CaseRow] = []
    for c in cases:
        created = parse_time(c.created_at)
        if (since and created < since) or (until and created >= until):
            continue
        kept.append(c)
    by_queue: dict[str, list[CaseRow]] = {}
    by_topic: dict[str, list[CaseRow]] = {}
    for c in kept:
        by_queue.setdefault(c.queue, []).append(c)
        by_topic.setdefault(c.topic, []).append(c)
    reviewers = Counter(c.reviewer for c in kept if c.state == "resolved" and c.reviewer)
    return {
        "all": _group(kept, now),
        "by_queue": {q: _group(v, now) for q, v in sorted(by_queue.items())},
        "by_topic": {t: _group(v, now) for t, v in sorted(by_topic.items())},
        "resolved_by_reviewer": dict(reviewers.most_common()),
    }
