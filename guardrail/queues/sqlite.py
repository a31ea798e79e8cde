"""The default escalation sink: a durable review queue in one SQLite file.

A case moves ``open -> claimed -> resolved``; a resolution records the outcome (approved,
edited, rejected), the reviewer, timestamps and the final answer chosen. Named queues are just
``case.queue``.

Durability: the database runs in WAL mode with ``synchronous=FULL``, so a commit has reached
the disk (the WAL is fsynced) before ``send`` returns. ``NORMAL`` would survive a process crash
but may lose the last commits on power loss; escalations are rare, so the extra fsync per case
is cheap and we keep the stronger promise ("nothing is lost").

Threading: ``sqlite3`` connections must not be shared between threads, so every operation opens
its own short-lived connection. The async ``send`` runs the blocking work in a worker thread.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from guardrail.exceptions import EscalationError, GuardrailError
from guardrail.models import EscalationCase, ReviewOutcome

__all__ = [
    "CaseNotFoundError",
    "CaseResolution",
    "CaseState",
    "CaseStateError",
    "ReviewError",
    "ReviewOutcome",
    "SQLiteQueue",
    "StoredCase",
    "connect",
    "utc_now",
]

CaseState = Literal["open", "claimed", "resolved"]
STATES: tuple[CaseState, ...] = ("open", "claimed", "resolved")
OUTCOMES: tuple[ReviewOutcome, ...] = ("approved", "edited", "rejected")

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS cases (
    case_id      TEXT PRIMARY KEY,
    queue        TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    enqueued_at  TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'open'
                 CHECK (state IN ('open', 'claimed', 'resolved')),
    reviewer     TEXT,
    claimed_at   TEXT,
    resolved_at  TEXT,
    outcome      TEXT CHECK (outcome IS NULL OR outcome IN ('approved', 'edited', 'rejected')),
    final_answer TEXT,
    note         TEXT,
    payload      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cases_by_queue_state ON cases (queue, state, created_at);
"""


class ReviewError(GuardrailError):
    """A review action that the case's current state does not allow, or an unknown case."""


class CaseNotFoundError(ReviewError):
    """No case with this id is in the queue."""


class CaseStateError(ReviewError):
    """The case is not in a state that allows the action (e.g. resolving an open case)."""


class CaseResolution(BaseModel):
    """A reviewer's decision on one case — what the audit log records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    queue: str
    outcome: ReviewOutcome
    reviewer: str
    final_answer: str | None
    note: str | None = None
    claimed_at: str | None = None
    resolved_at: str


class StoredCase(BaseModel):
    """A case as the queue holds it: the escalated turn plus its review state."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case: EscalationCase
    state: CaseState
    enqueued_at: str
    reviewer: str | None = None
    claimed_at: str | None = None
    resolved_at: str | None = None
    outcome: ReviewOutcome | None = None
    final_answer: str | None = None
    note: str | None = None

    @property
    def case_id(self) -> str:
        return self.case.case_id

    @property
    def queue(self) -> str:
        return self.case.queue


#: How long a connection waits for another writer (and for a fresh file's switch to WAL).
BUSY_TIMEOUT_S = 30.0


def utc_now() -> str:
    """ISO 8601 UTC with microseconds, the format every timestamp here uses."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def connect(path: Path) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode, WAL journal, ``synchronous=FULL``, 30 s busy wait.

    Transactions are explicit (``BEGIN IMMEDIATE``) so writers take the lock up front and a
    read-then-write never fails half-way with ``SQLITE_BUSY``.
    """
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        mode = _journal_mode_wal(conn)
    except BaseException:
        conn.close()
        raise
    if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only or network FS
        conn.close()
        raise EscalationError(f"{path}: SQLite refused WAL mode (got {mode!r})")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _journal_mode_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL, retrying "database is locked" for up to :data:`BUSY_TIMEOUT_S`.

    Changing the journal mode of a new file needs an exclusive lock, and SQLite reports
    ``SQLITE_BUSY`` for it at once instead of calling the busy handler, so several connections
    opening a fresh file together (seen with threads) would fail without this loop. Once the
    file is in WAL mode (it stays so) the pragma is a no-op.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolling back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class SchemaDB:
    """One SQLite file whose schema script runs on first use; a fresh connection per operation.

    ``what`` names the store in error messages ("review queue", "outbox"). SQLite errors
    become :class:`~guardrail.exceptions.EscalationError`.
    """

    def __init__(self, path: Path, schema: str, what: str) -> None:
        self.path = path
        self.schema = schema
        self.what = what
        self._ready = False
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = connect(self.path)
        except sqlite3.Error as exc:
            raise EscalationError(f"{self.path}: cannot open {self.what}: {exc}") from exc
        try:
            if not self._ready:
                with self._lock:
                    if not self._ready:
                        conn.executescript(self.schema)
                        self._ready = True
            yield conn
        except sqlite3.Error as exc:
            raise EscalationError(f"{self.path}: {self.what} error: {exc}") from exc
        finally:
            conn.close()


class SQLiteQueue:
    """Durable review queue and :class:`~guardrail.queues.base.EscalationSink`.

    ``on_resolve`` is called with the :class:`CaseResolution` *inside* the resolving transaction,
    before it commits: if the hook (e.g. an audit-log append) raises, the resolution is rolled
    back and the error propagates, so the audit log never misses a resolution that happened.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        on_resolve: Callable[[CaseResolution], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.on_resolve = on_resolve
        schema = f"{_SCHEMA}\nPRAGMA user_version = {_SCHEMA_VERSION};"
        self._db = SchemaDB(self.path, schema, "review queue")

    @property
    def name(self) -> str:
        return f"sqlite:{self.path}"

    def __repr__(self) -> str:
        return f"SQLiteQueue({str(self.path)!r})"

    # --- plumbing ------------------------------------------------------------------------

    @staticmethod
    def _row_to_stored(row: sqlite3.Row) -> StoredCase:
        return StoredCase(
            case=EscalationCase.model_validate_json(row["payload"]),
            state=row["state"],
            enqueued_at=row["enqueued_at"],
            reviewer=row["reviewer"],
            claimed_at=row["claimed_at"],
            resolved_at=row["resolved_at"],
            outcome=row["outcome"],
            final_answer=row["final_answer"],
            note=row["note"],
        )

    @staticmethod
    def _fetch(conn: sqlite3.Connection, case_id: str) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM cases WHERE case_id = ?", (case_id,)
        ).fetchone()
        if row is None:
            raise CaseNotFoundError(f"no case {case_id!r} in the review queue")
        return row

    # --- the sink ------------------------------------------------------------------------

    def add(self, case: EscalationCase) -> bool:
        """Store ``case`` as open; return False when a case with that id was already there."""
        payload = case.model_dump_json()
        with self._db.connect() as conn, transaction(conn):
            cur = conn.execute(
                "INSERT OR IGNORE INTO cases (case_id, queue, created_at, enqueued_at, payload)"
                " VALUES (?, ?, ?, ?, ?)",
                (case.case_id, case.queue, case.created_at, utc_now(), payload),
            )
            return cur.rowcount == 1

    async def send(self, case: EscalationCase) -> None:
        """Durably enqueue ``case`` (idempotent on ``case_id``); raises EscalationError."""
        await asyncio.to_thread(self.add, case)

    # --- reading -------------------------------------------------------------------------

    def get(self, case_id: str) -> StoredCase:
        """The case with this id; :class:`CaseNotFoundError` when there is none."""
        with self._db.connect() as conn:
            return self._row_to_stored(self._fetch(conn, case_id))

    def list(
        self,
        queue: str | None = None,
        state: CaseState | None = None,
        *,
        limit: int | None = None,
    ) -> builtins.list[StoredCase]:
        """Cases oldest first, optionally only one queue and/or one state."""
        if state is not None and state not in STATES:
            raise ReviewError(f"unknown state {state!r}; expected one of {', '.join(STATES)}")
        sql = "SELECT * FROM cases WHERE 1 = 1"
        params: list[object] = []
        if queue is not None:
            sql += " AND queue = ?"
            params.append(queue)
        if state is not None:
            sql += " AND state = ?"
            params.append(state)
        sql += " ORDER BY created_at, rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._db.connect() as conn:
            return [self._row_to_stored(r) for r in conn.execute(sql, params)]

    def counts(self) -> dict[str, dict[str, int]]:
        """``{queue: {state: n}}`` for every queue that holds a case."""
        out: dict[str, dict[str, int]] = {}
        with self._db.connect() as conn:
            for row in conn.execute(
                "SELECT queue, state, COUNT(*) AS n FROM cases GROUP BY queue, state"
            ):
                out.setdefault(row["queue"], dict.fromkeys(STATES, 0))[row["state"]] = row["n"]
        return out

    # --- reviewing -----------------------------------------------------------------------

    def claim(self, case_id: str, reviewer: str) -> StoredCase:
        """Take an open case for ``reviewer``. Claiming your own claimed case again is a no-op."""
        reviewer = (reviewer or "").strip()
        if not reviewer:
            raise ReviewError("a reviewer name is required to claim a case")
        with self._db.connect() as conn, transaction(conn):
            row = self._fetch(conn, case_id)
            state, holder = row["state"], row["reviewer"]
            if state == "claimed" and holder == reviewer:
                return self._row_to_stored(row)
            if state == "claimed":
                raise CaseStateError(f"case {case_id!r} is already claimed by {holder}")
            if state == "resolved":
                raise CaseStateError(
                    f"case {case_id!r} is already resolved ({row['outcome']} by {holder})"
                )
            conn.execute(
                "UPDATE cases SET state = 'claimed', reviewer = ?, claimed_at = ?"
                " WHERE case_id = ? AND state = 'open'",
                (reviewer, utc_now(), case_id),
            )
            return self._row_to_stored(self._fetch(conn, case_id))

    def resolve(
        self,
        case_id: str,
        outcome: ReviewOutcome,
        final_answer: str | None = None,
        note: str | None = None,
        *,
        reviewer: str | None = None,
    ) -> CaseResolution:
        """Close a claimed case.

        ``approved`` keeps the original answer (no ``final_answer`` allowed); ``edited`` needs
        a new text that differs from the original (ignoring surrounding white space: an
        unchanged edit is refused, approve instead); ``rejected`` may carry a replacement
        message. ``reviewer`` defaults to the one who claimed it and must match them when given.
        """
        if outcome not in OUTCOMES:
            raise ReviewError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
        if outcome == "edited" and not (final_answer or "").strip():
            raise ReviewError("an edited resolution needs a non-empty final answer")
        if outcome == "approved" and final_answer is not None:
            raise ReviewError("approving keeps the original answer; use 'edited' to change it")
        with self._db.connect() as conn, transaction(conn):
            row = self._fetch(conn, case_id)
            case = EscalationCase.model_validate_json(row["payload"])
            if outcome == "edited" and (final_answer or "").strip() == case.answer.strip():
                raise ReviewError("the edited answer is unchanged: approve it instead")
            if row["state"] != "claimed":
                hint = "claim it first" if row["state"] == "open" else "it is already resolved"
                raise CaseStateError(f"case {case_id!r} is {row['state']}: {hint}")
            holder: str = row["reviewer"]
            if reviewer is not None and reviewer.strip() != holder:
                raise CaseStateError(
                    f"case {case_id!r} is claimed by {holder}, not {reviewer.strip()}"
                )
            chosen = case.answer if outcome == "approved" else final_answer
            resolution = CaseResolution(
                case_id=case_id,
                queue=row["queue"],
                outcome=outcome,
                reviewer=holder,
                final_answer=chosen,
                note=note or None,
                claimed_at=row["claimed_at"],
                resolved_at=utc_now(),
            )
            conn.execute(
                "UPDATE cases SET state = 'resolved', outcome = ?, final_answer = ?, note = ?,"
                " resolved_at = ? WHERE case_id = ? AND state = 'claimed'",
                (outcome, chosen, resolution.note, resolution.resolved_at, case_id),
            )
            if self.on_resolve is not None:
                self.on_resolve(resolution)
            return resolution
