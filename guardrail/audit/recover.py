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
from pathlib import Path

from guardrail.audit.log import AuditLog
from guardrail.audit.record import AuditRecord, TextRedaction
from guardrail.queues.sqlite import SQLiteQueue


def recorded_turns(path: str | Path) -> set[str]:
    """Audit ids of every turn (and failed turn) the log at ``path`` records."""
    found: set[str] = set()
    p = Path(path)
    if not p.exists():
        return found
    with p.open("rb") as handle:
        for raw in handle:
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
    log: AuditLog,
    queue: SQLiteQueue,
    *,
    policy_hash: str = "",
    redaction: TextRedaction = "none",
) -> list[str]:
    """Append a turn record for every queued case the log lacks; return their case ids."""
    known = recorded_turns(log.path)
    recovered = []
    for stored in queue.list():
        if stored.case_id in known:
            continue
        record = AuditRecord.recovered_turn(
            stored.case, policy_hash=policy_hash, redaction=redaction
        )
        log.append(record)
        recovered.append(stored.case_id)
    return recovered
