"""The audit trail: one hash-chained JSON record per guarded turn, resolution or event.

* :class:`AuditRecord` — the schema (``extra="forbid"``: nothing undeclared can be logged).
* :class:`AuditLog` — the append-only writer (thread-safe, fsync-ed, restart-safe).
* :func:`verify_log` — checks the chain and names the first altered, inserted, removed or
  reordered line; ``guardrail audit verify PATH`` on the command line.
* :func:`open_audit_log` / :func:`verify_trail` — the same for a path or a ``postgresql://``
  URL (:class:`~guardrail.audit.pg_log.PostgresAuditLog`: one chain serialised by the database).
"""

from __future__ import annotations

from guardrail.audit.chain import (
    GENESIS_HASH,
    VerifyReport,
    record_hash,
    verify_log,
)
from guardrail.audit.log import AuditLog
from guardrail.audit.record import (
    AuditRecord,
    FactoidEntry,
    RecordKind,
    Resolution,
    TextRedaction,
    text_hash,
)
from guardrail.audit.trail import AuditTrail, open_audit_log, verify_trail
from guardrail.canonical import canonical_json
from guardrail.models import ReviewOutcome

__all__ = [
    "GENESIS_HASH",
    "AuditLog",
    "AuditRecord",
    "AuditTrail",
    "FactoidEntry",
    "RecordKind",
    "Resolution",
    "ReviewOutcome",
    "TextRedaction",
    "VerifyReport",
    "canonical_json",
    "open_audit_log",
    "record_hash",
    "text_hash",
    "verify_log",
    "verify_trail",
]
