"""The review queue: a durable store of escalated cases that reviewers claim and resolve.

A case moves ``open -> claimed -> resolved``; a resolution records the outcome (approved,
edited, rejected), the reviewer, timestamps and the final answer chosen. Named queues are just
``case.queue``.

One class, two backends (:mod:`guardrail.storage`): ``ReviewQueue(path)`` keeps the queue in
an SQLite file (the embedded default), ``ReviewQueue("postgresql://...")`` in PostgreSQL, shared
by every server and reviewer on every host. The state machine below runs unchanged on both;
every check-then-update runs in one write transaction that first locks the case (SQLite: the
database's one writer lock; PostgreSQL: ``SELECT ... FOR UPDATE`` on the row), so a case is
claimed by exactly one reviewer however many race for it. :meth:`ReviewQueue.claim_next` hands
each caller a different open case (``FOR UPDATE SKIP LOCKED`` on PostgreSQL).

Durability: SQLite runs in WAL mode with ``synchronous=FULL``, so a commit has reached the disk
(the WAL is fsynced) before ``send`` returns. ``NORMAL`` would survive a process crash but may
lose the last commits on power loss; escalations are rare, so the extra fsync per case is cheap
and we keep the stronger promise ("nothing is lost"). PostgreSQL commits are durable with its
default ``synchronous_commit = on``.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from guardrail.exceptions import GuardrailError
from guardrail.models import EscalationCase, ReviewOutcome
from guardrail.storage import Connection, Target, describe_target, open_database

__all__ = [
    "OUTCOMES",
    "STATES",
    "CaseNotFoundError",
    "CaseResolution",
    "CaseState",
    "CaseStateError",
    "ReviewError",
    "ReviewOutcome",
    "ReviewQueue",
    "SQLiteQueue",
    "StoredCase",
    "utc_now",
]

CaseState = Literal["open", "claimed", "resolved"]
STATES: tuple[CaseState, ...] = ("open", "claimed", "resolved")
OUTCOMES: tuple[ReviewOutcome, ...] = ("approved", "edited", "rejected")

_SCHEMA_VERSION = 1
_COLUMNS = """
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
    payload      TEXT NOT NULL"""
_INDEX = "CREATE INDEX IF NOT EXISTS cases_by_queue_state ON cases (queue, state, created_at);"
SQLITE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS cases ({_COLUMNS}
);
{_INDEX}
PRAGMA user_version = {_SCHEMA_VERSION};
"""
#: ``pos`` keeps insertion order, as SQLite's ``rowid`` does.
POSTGRES_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS cases ({_COLUMNS},
    pos          BIGSERIAL NOT NULL
);
{_INDEX}
"""


def utc_now() -> str:
    """ISO 8601 UTC with microseconds, the format every timestamp here uses."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


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


class ReviewQueue:
    """Durable review queue and :class:`~guardrail.queues.base.EscalationSink`.

    ``target`` is a path (SQLite) or a ``postgresql://`` URL; nothing is opened before the first
    operation.

    ``on_resolve`` is called with the :class:`CaseResolution` *inside* the resolving transaction,
    before it commits: if the hook (e.g. an audit-log append) raises, the resolution is rolled
    back and the error propagates, so the audit log never misses a resolution that happened.

    ``clock`` stamps ``enqueued_at``, ``claimed_at`` and ``resolved_at`` (ISO 8601 UTC); the
    default is the wall clock. Generated review histories pass their own.
    """

    def __init__(
        self,
        target: Target,
        *,
        on_resolve: Callable[[CaseResolution], None] | None = None,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.on_resolve = on_resolve
        self.clock = clock
        self._db = open_database(
            target, sqlite=SQLITE_SCHEMA, postgres=POSTGRES_SCHEMA, what="review queue"
        )
        self.target: Target = self._db.target

    @property
    def name(self) -> str:
        if self._db.backend == "sqlite":
            return f"sqlite:{self._db.location}"
        return self._db.location

    def __repr__(self) -> str:
        return f"{type(self).__name__}({describe_target(self.target)!r})"

    # --- plumbing ------------------------------------------------------------------------

    @staticmethod
    def _row_to_stored(row: Any) -> StoredCase:
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

    def _fetch(self, conn: Connection, case_id: str, *, lock: bool = False) -> Any:
        """The case's row; ``lock`` holds it for the rest of the write transaction."""
        row = conn.execute(
            "SELECT * FROM cases WHERE case_id = ?" + (self._db.for_update if lock else ""),
            (case_id,),
        ).fetchone()
        if row is None:
            raise CaseNotFoundError(f"no case {case_id!r} in the review queue")
        return row

    # --- the sink ------------------------------------------------------------------------

    def add(self, case: EscalationCase) -> bool:
        """Store ``case`` as open; return False when a case with that id was already there."""
        payload = case.model_dump_json()
        with self._db.write() as conn:
            cur = conn.execute(
                "INSERT INTO cases (case_id, queue, created_at, enqueued_at, payload)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (case_id) DO NOTHING",
                (case.case_id, case.queue, case.created_at, self.clock(), payload),
            )
            return cur.rowcount == 1

    async def send(self, case: EscalationCase) -> None:
        """Durably enqueue ``case`` (idempotent on ``case_id``); raises EscalationError."""
        await asyncio.to_thread(self.add, case)

    # --- reading -------------------------------------------------------------------------

    def get(self, case_id: str) -> StoredCase:
        """The case with this id; :class:`CaseNotFoundError` when there is none."""
        with self._db.read() as conn:
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
        sql += f" ORDER BY created_at, {self._db.tiebreak}"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._db.read() as conn:
            return [self._row_to_stored(r) for r in conn.execute(sql, params)]

    def counts(self) -> dict[str, dict[str, int]]:
        """``{queue: {state: n}}`` for every queue that holds a case."""
        out: dict[str, dict[str, int]] = {}
        with self._db.read() as conn:
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
        with self._db.write() as conn:
            row = self._fetch(conn, case_id, lock=True)
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
                (reviewer, self.clock(), case_id),
            )
            return self._row_to_stored(self._fetch(conn, case_id))

    def claim_next(self, reviewer: str, queue: str | None = None) -> StoredCase | None:
        """Claim the oldest open case (of ``queue``, if given) for ``reviewer``; ``None`` when
        there is none. Concurrent callers each get a different case: on PostgreSQL the row is
        taken with ``FOR UPDATE SKIP LOCKED`` (a case another reviewer is taking is skipped,
        not waited for); on SQLite the write transaction runs alone."""
        reviewer = (reviewer or "").strip()
        if not reviewer:
            raise ReviewError("a reviewer name is required to claim a case")
        sql = "SELECT * FROM cases WHERE state = 'open'"
        params: list[object] = []
        if queue is not None:
            sql += " AND queue = ?"
            params.append(queue)
        sql += f" ORDER BY created_at, {self._db.tiebreak} LIMIT 1{self._db.skip_locked}"
        while True:
            with self._db.write() as conn:
                row = conn.execute(sql, params).fetchone()
                if row is None:
                    return None
                cur = conn.execute(
                    "UPDATE cases SET state = 'claimed', reviewer = ?, claimed_at = ?"
                    " WHERE case_id = ? AND state = 'open'",
                    (reviewer, self.clock(), row["case_id"]),
                )
                if cur.rowcount == 1:  # always, with the row lock; never hand out another's
                    return self._row_to_stored(self._fetch(conn, row["case_id"]))

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
        with self._db.write() as conn:
            row = self._fetch(conn, case_id, lock=True)
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
                resolved_at=self.clock(),
            )
            conn.execute(
                "UPDATE cases SET state = 'resolved', outcome = ?, final_answer = ?, note = ?,"
                " resolved_at = ? WHERE case_id = ? AND state = 'claimed'",
                (outcome, chosen, resolution.note, resolution.resolved_at, case_id),
            )
            if self.on_resolve is not None:
                self.on_resolve(resolution)
            return resolution


class SQLiteQueue(ReviewQueue):
    """The review queue in the SQLite file ``path`` (created on first use): the default sink."""

    def __init__(
        self,
        path: str | Path,
        *,
        on_resolve: Callable[[CaseResolution], None] | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(self.path, on_resolve=on_resolve)
