"""A durable outbox for at-least-once delivery of cases to remote sinks.

A case is written here *before* the first delivery attempt and marked delivered only after the
receiver acknowledged it, so a crash, a timeout or a dead receiver leaves it ``pending`` —
visible (``pending()``, ``guardrail review outbox``) and redeliverable, never dropped.
It lives where the review queue lives (:mod:`guardrail.storage`): an SQLite file (it may be
the review queue's file: the table names differ) or a PostgreSQL database.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from guardrail.models import EscalationCase
from guardrail.queues.review_queue import utc_now
from guardrail.storage import Target, describe_target, open_database

__all__ = ["DatabaseOutbox", "Outbox", "OutboxEntry", "SQLiteOutbox"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    destination  TEXT NOT NULL,
    case_id      TEXT NOT NULL,
    queue        TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    created_at   TEXT NOT NULL,
    last_try_at  TEXT,
    delivered_at TEXT,
    payload      TEXT NOT NULL,{pos}
    PRIMARY KEY (destination, case_id)
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (state, destination, created_at);
"""
#: PostgreSQL has no ``rowid``: ``pos`` keeps insertion order.
_SQLITE_SCHEMA = _SCHEMA.format(pos="")
_POSTGRES_SCHEMA = _SCHEMA.format(pos="\n    pos          BIGSERIAL NOT NULL,")


class OutboxEntry(BaseModel):
    """One case on its way to one destination."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    destination: str
    case: EscalationCase
    state: Literal["pending", "delivered"]
    attempts: int
    last_error: str | None = None
    created_at: str
    last_try_at: str | None = None
    delivered_at: str | None = None


class Outbox(Protocol):
    """What :class:`~guardrail.queues.webhook.WebhookSink` needs from durable storage."""

    def put(self, destination: str, case: EscalationCase) -> OutboxEntry: ...

    def record_attempt(self, destination: str, case_id: str, error: str | None) -> None: ...

    def pending(self, destination: str | None = None) -> builtins.list[OutboxEntry]: ...


class DatabaseOutbox:
    """The outbox at ``target``: an SQLite file path or a ``postgresql://`` URL."""

    def __init__(self, target: Target) -> None:
        self._db = open_database(
            target, sqlite=_SQLITE_SCHEMA, postgres=_POSTGRES_SCHEMA, what="outbox"
        )
        self.target: Target = self._db.target

    def __repr__(self) -> str:
        return f"{type(self).__name__}({describe_target(self.target)!r})"

    @staticmethod
    def _entry(row: Any) -> OutboxEntry:
        return OutboxEntry(
            destination=row["destination"],
            case=EscalationCase.model_validate_json(row["payload"]),
            state=row["state"],
            attempts=row["attempts"],
            last_error=row["last_error"],
            created_at=row["created_at"],
            last_try_at=row["last_try_at"],
            delivered_at=row["delivered_at"],
        )

    def put(self, destination: str, case: EscalationCase) -> OutboxEntry:
        """Store the case for ``destination`` unless already there; return the stored entry."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO outbox (destination, case_id, queue, created_at, payload)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (destination, case_id) DO NOTHING",
                (destination, case.case_id, case.queue, utc_now(), case.model_dump_json()),
            )
            row = conn.execute(
                "SELECT * FROM outbox WHERE destination = ? AND case_id = ?",
                (destination, case.case_id),
            ).fetchone()
            return self._entry(row)

    def record_attempt(self, destination: str, case_id: str, error: str | None) -> None:
        """Count one delivery attempt; ``error=None`` means it was acknowledged (delivered)."""
        now = utc_now()
        with self._db.write() as conn:
            if error is None:
                conn.execute(
                    "UPDATE outbox SET attempts = attempts + 1, last_try_at = ?,"
                    " state = 'delivered', delivered_at = ?, last_error = NULL"
                    " WHERE destination = ? AND case_id = ?",
                    (now, now, destination, case_id),
                )
            else:
                conn.execute(
                    "UPDATE outbox SET attempts = attempts + 1, last_try_at = ?, last_error = ?"
                    " WHERE destination = ? AND case_id = ?",
                    (now, error, destination, case_id),
                )

    def _select(
        self, destination: str | None, state: Literal["pending"] | None = None
    ) -> builtins.list[OutboxEntry]:
        """Entries oldest first, optionally only one destination and/or one state."""
        sql = "SELECT * FROM outbox WHERE 1 = 1"
        params: builtins.list[str] = []
        if state is not None:
            sql += " AND state = ?"
            params.append(state)
        if destination is not None:
            sql += " AND destination = ?"
            params.append(destination)
        with self._db.read() as conn:
            order = f" ORDER BY created_at, {self._db.tiebreak}"
            return [self._entry(r) for r in conn.execute(sql + order, params)]

    def pending(self, destination: str | None = None) -> builtins.list[OutboxEntry]:
        """Undelivered entries, oldest first (all destinations unless one is named)."""
        return self._select(destination, "pending")

    def list(self, destination: str | None = None) -> builtins.list[OutboxEntry]:
        """Every entry, delivered or not, oldest first."""
        return self._select(destination)


class SQLiteOutbox(DatabaseOutbox):
    """The outbox in an SQLite file (WAL, ``synchronous=FULL``, a connection per operation)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        super().__init__(self.path)
