"""Close the one gap a crash can leave between the review queue and the audit log.

The guard sends an escalation to the review queue *before* it writes the turn's audit record
(the reviewer must get the case even if the log is slow or failing). A process killed between
the two leaves a case whose turn has no record. :func:`recover_turns` finds such cases and
appends their turn records, rebuilt from the case (``event_name="turn_recovered"``), so every
escalation is in the audit trail. ``guardrail serve`` runs it at start-up; ``guardrail audit
recover`` runs it by hand. It is idempotent: a second run finds nothing to do.
"""

from __future__ import annotations

import json

from guardrail.audit.chain import FileLines, LineSource
from guardrail.audit.record import AuditRecord, TextRedaction
from guardrail.audit.trail import AuditTrail, trail_source
from guardrail.queues.review_queue import ReviewQueue
from guardrail.storage import Target


def recorded_turns(target: Target) -> set[str]:
    """Audit ids of every turn (and failed turn) the trail at ``target`` records (a JSON Lines
    file, missing counts as empty, or a ``postgresql://`` database)."""
    return turns_in(trail_source(target))


def turns_in(source: LineSource) -> set[str]:
    """Audit ids of every turn (and failed turn) among ``source``'s lines."""
    found: set[str] = set()
    if isinstance(source, FileLines) and not source.path.exists():
        return found
    with source.lines() as lines:
        for raw in lines:
            try:
                obj = json.loads(raw)
            except ValueError:  # a torn last line, or damage: `audit verify` reports those
                continue
            if isinstance(obj, dict) and (
                obj.get("kind") == "turn" or obj.get("event_name") == "turn_failed"
            ):
                found.add(str(obj.get("audit_id")))
    return found


def recover_turns(
    log: AuditTrail,
    queue: ReviewQueue,
    *,
    policy_hash: str = "",
    redaction: TextRedaction = "none",
) -> list[str]:
    """Append a turn record for every queued case the log lacks; return their case ids.

    Holds the trail's :meth:`~AuditTrail.exclusive` lock from reading to the last append, so
    replicas starting at once (or ``audit recover`` beside a starting ``serve``) recover each
    turn once."""
    recovered = []
    with log.exclusive():
        known = turns_in(log.source())
        for stored in queue.list():
            if stored.case_id in known:
                continue
            record = AuditRecord.recovered_turn(
                stored.case, policy_hash=policy_hash, redaction=redaction
            )
            log.append(record)
            recovered.append(stored.case_id)
    return recovered
