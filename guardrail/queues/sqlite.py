"""The default escalation sink: the review queue in one SQLite file.

:class:`SQLiteQueue` is :class:`~guardrail.queues.review_queue.ReviewQueue` held to a file path
(its state machine, durability and threading notes live there and in
:mod:`guardrail.queues.db`). The names below are re-exported for code that imported them from
here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from guardrail.queues.db import connect, transaction
from guardrail.queues.review_queue import (
    OUTCOMES,
    STATES,
    CaseNotFoundError,
    CaseResolution,
    CaseState,
    CaseStateError,
    ReviewError,
    ReviewOutcome,
    ReviewQueue,
    StoredCase,
    utc_now,
)

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
    "connect",
    "transaction",
    "utc_now",
]


class SQLiteQueue(ReviewQueue):
    """The review queue in the SQLite file ``path`` (created on first use)."""

    def __init__(
        self,
        path: str | Path,
        *,
        on_resolve: Callable[[CaseResolution], None] | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(self.path, on_resolve=on_resolve)
