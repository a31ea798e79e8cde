"""One entry point for the audit trail, wherever it lives: a JSON Lines file or PostgreSQL.

``open_audit_log(target)`` returns an :class:`~guardrail.audit.log.AuditLog` for a path (the
embedded default) and a :class:`~guardrail.audit.pg_log.PostgresAuditLog` for a
``postgresql://`` URL; both satisfy :class:`AuditTrail`. ``verify_trail(target)`` checks either
with the one verifier (:func:`~guardrail.audit.chain.verify_lines`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Protocol

from guardrail.audit.chain import FileLines, LineSource, VerifyReport, verify_lines
from guardrail.audit.log import AuditLog
from guardrail.audit.record import AuditRecord, TextRedaction
from guardrail.exceptions import AuditError
from guardrail.storage import Target, is_postgres_url

__all__ = ["AuditTrail", "open_audit_log", "trail_source", "verify_trail"]


class AuditTrail(Protocol):
    """What writers of the audit trail (the guard, the review hook, recovery) use."""

    redaction: TextRedaction

    @property
    def location(self) -> str: ...

    def source(self) -> LineSource: ...

    def append(self, record: AuditRecord) -> AuditRecord: ...

    def exclusive(self) -> contextlib.AbstractContextManager[None]: ...

    async def aappend(self, record: AuditRecord) -> AuditRecord: ...

    def close(self) -> None: ...


def open_audit_log(
    target: Target, *, redaction: TextRedaction = "none", fsync: bool = True
) -> AuditTrail:
    """The audit trail at ``target``: a JSON Lines file or a ``postgresql://`` database."""
    if is_postgres_url(target):
        from guardrail.audit.pg_log import PostgresAuditLog

        return PostgresAuditLog(str(target), redaction=redaction, fsync=fsync)
    return AuditLog(Path(target), redaction=redaction, fsync=fsync)


def trail_source(target: Target) -> LineSource:
    """The lines of the trail at ``target``, in order."""
    if is_postgres_url(target):
        from guardrail.audit.pg_log import PostgresLines

        return PostgresLines(str(target))
    return FileLines(Path(target))


def verify_trail(target: Target, *, anchor: str | None = None) -> VerifyReport:
    """Check the chain of the trail at ``target`` (see :func:`~guardrail.audit.chain.verify_log`).

    Raises :class:`AuditError` when a file does not exist or the database cannot be read.
    """
    if not is_postgres_url(target) and not Path(target).is_file():
        raise AuditError(f"audit log not found: {target}")
    return verify_lines(trail_source(target), anchor=anchor)
