"""The audit trail in PostgreSQL: one hash chain, serialised by the database.

Each record is one row of ``audit_records``: ``pos`` (the line number, 1, 2, ...), a few
columns to query by (``audit_id``, ``kind``, ``event_name``, ``written_at``) and ``line``, the
record's canonical JSON exactly as the JSON Lines log would hold it. Hashes, ``seq`` and
``prev_hash`` are computed by the same code as for the file (:func:`~guardrail.audit.log.seal`),
and ``guardrail audit verify`` walks the rows in ``pos`` order through the same verifier, so a
changed, inserted, removed or reordered row is named as precisely as a line of the file.

Why one chain, not one per writer: the appending transaction takes ``LOCK TABLE audit_records
IN SHARE ROW EXCLUSIVE MODE`` (it conflicts with itself, not with readers), reads the last row,
checks its hash, and inserts the next one; the lock is held until the commit, so rows are
numbered in commit order and the chain never forks, whichever host or process appends. One
chain keeps the file's guarantees and diagnostics unchanged: a record removed from the middle
or the end (with an ``--anchor``) is caught, while per-writer chains could each lose their
tail unnoticed and would need one anchor per writer. The price is that appends take turns:
each one holds the lock for one short transaction and its commit (one WAL flush), which
``benchmarks/scale_out.py`` measures under two replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from guardrail.audit.chain import GENESIS_HASH
from guardrail.audit.log import chain_head, seal
from guardrail.audit.record import AuditRecord, TextRedaction
from guardrail.canonical import canonical_json
from guardrail.exceptions import AuditError, EscalationError
from guardrail.storage import PostgresDatabase, describe_target

__all__ = ["PostgresAuditLog", "PostgresLines"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_records (
    pos        BIGINT PRIMARY KEY,
    audit_id   TEXT,
    kind       TEXT NOT NULL,
    event_name TEXT,
    written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    line       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_records_by_audit_id ON audit_records (audit_id);
"""
#: Advisory-lock key of crash recovery (:meth:`PostgresAuditLog.exclusive`); any constant
#: distinct from the stores' schema lock.
_RECOVERY_LOCK = 0x6775_6172_6472_6C01

#: Rows fetched per query while reading the trail (constant memory for any length).
PAGE_ROWS = 2000


def _database(url: str) -> PostgresDatabase:
    return PostgresDatabase(url, _SCHEMA, "audit trail", role="audit")


class PostgresLines:
    """The trail's lines in ``pos`` order, read page by page, for the verifier."""

    def __init__(self, url: str) -> None:
        self._db = _database(url)
        self.name = describe_target(url)

    @contextlib.contextmanager
    def lines(self) -> Iterator[Iterator[bytes]]:
        yield self._iter()

    def _iter(self) -> Iterator[bytes]:
        last = 0
        while True:
            try:
                with self._db.read() as conn:
                    rows = conn.execute(
                        "SELECT pos, line FROM audit_records WHERE pos > ? ORDER BY pos LIMIT ?",
                        (last, PAGE_ROWS),
                    ).fetchall()
            except EscalationError as exc:
                raise AuditError(str(exc)) from exc
            for row in rows:
                yield row["line"].encode("utf-8") + b"\n"
            if len(rows) < PAGE_ROWS:
                return
            last = rows[-1]["pos"]

    def count(self) -> int:
        """How many rows the trail holds."""
        try:
            with self._db.read() as conn:
                return int(conn.execute("SELECT count(*) AS n FROM audit_records").fetchone()["n"])
        except EscalationError as exc:
            raise AuditError(str(exc)) from exc


class PostgresAuditLog:
    """Append :class:`AuditRecord` rows to the ``audit_records`` table at ``url``, hash-chained.

    The same interface as :class:`~guardrail.audit.log.AuditLog` (``redaction`` is the same
    floor). ``fsync`` is accepted for symmetry and ignored: a commit is durable as PostgreSQL's
    ``synchronous_commit`` setting says (on, by default).
    """

    def __init__(self, url: str, *, redaction: TextRedaction = "none", fsync: bool = True) -> None:
        self.url = url
        self.redaction: TextRedaction = redaction
        self._db = _database(url)

    @property
    def location(self) -> str:
        return self._db.location

    def source(self) -> PostgresLines:
        return PostgresLines(self.url)

    def __repr__(self) -> str:
        return f"PostgresAuditLog({self.location!r})"

    def append(self, record: AuditRecord) -> AuditRecord:
        """Redact, number, chain and commit ``record``; return it as written.

        Raises :class:`AuditError` when it cannot be written (nothing is then stored) or when
        the last stored row fails its own hash check (the chain is not continued onto it).
        """
        try:
            with self._db.write() as conn:
                conn.execute("LOCK TABLE audit_records IN SHARE ROW EXCLUSIVE MODE")
                last = conn.execute(
                    "SELECT pos, line FROM audit_records ORDER BY pos DESC LIMIT 1"
                ).fetchone()
                pos, seq, head = 0, 0, GENESIS_HASH
                if last is not None:
                    pos = int(last["pos"])
                    seq, head = chain_head(last["line"].encode("utf-8"), self.location)
                sealed, body = seal(record, self.redaction, seq + 1, head)
                row = (pos + 1, sealed.audit_id, sealed.kind, sealed.event_name)
                conn.execute(
                    "INSERT INTO audit_records (pos, audit_id, kind, event_name, line)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (*row, canonical_json(body)),
                )
        except EscalationError as exc:
            raise AuditError(f"cannot write audit trail: {exc}") from exc
        return sealed

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Let one process at a time, on any host, run a read-then-append sequence (crash
        recovery): a transaction-scoped advisory lock held on a connection of its own while
        the appends inside use others."""
        try:
            with self._db.write() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(?)", (_RECOVERY_LOCK,))
                yield
        except EscalationError as exc:
            raise AuditError(f"cannot lock audit trail: {exc}") from exc

    async def aappend(self, record: AuditRecord) -> AuditRecord:
        """:meth:`append` in a worker thread, so the round trip does not block the event loop."""
        return await asyncio.to_thread(self.append, record)

    def close(self) -> None:
        """Nothing to close: connections belong to the process's pool."""

    def __enter__(self) -> PostgresAuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
