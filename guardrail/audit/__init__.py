"""The audit trail: one hash-chained JSON record per guarded turn, resolution or event.

* :class:`AuditRecord` — the schema (``extra="forbid"``: nothing undeclared can be logged).
* :class:`AuditLog` — the append-only writer (thread-safe, fsync-ed, restart-safe).
* :func:`verify_log` — checks the chain and names the first altered, inserted, removed or
  reordered line; ``guardrail audit verify PATH`` on the command line.
"""

from __future__ import annotations

from guardrail.audit.chain import (
    GENESIS_HASH,
    VerifyReport,
    canonical_json,
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
from guardrail.models import ReviewOutcome

__all__ = [
    "GENESIS_HASH",
    "AuditLog",
    "AuditRecord",
    "FactoidEntry",
    "RecordKind",
    "Resolution",
    "ReviewOutcome",
    "TextRedaction",
    "VerifyReport",
    "canonical_json",
    "record_hash",
    "text_hash",
    "verify_log",
]
