"""A turn's deadline and abandonment, honoured by the score step of every turn.

A :class:`Ticket` holds one turn's deadline and an *abandoned* flag (the client went away).
Whoever runs a turn under a deadline — the HTTP service and the proxy, through their serving
core — makes the ticket current for that turn (:data:`CURRENT_TICKET`, a context variable,
so it is per turn and never stored on a shared guard or scorer). :func:`bounded_score` is how
the turn pipeline calls a scorer: without a ticket it is the scorer's own ``score``; with one,
scoring stops at its next await when the deadline passes or the client leaves, and a
:class:`~guardrail.exceptions.ScoringError` carrying the judge calls that finished takes the
turn to the policy's ``on_error`` rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from guardrail.exceptions import ScoringError
from guardrail.models import ScoreReport
from guardrail.scoring.base import Scorer, watch_call_logs

__all__ = ["CURRENT_TICKET", "Ticket", "bounded_score"]

#: The ticket of the turn being scored on this task (set by whoever runs the turn).
CURRENT_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar(
    "guardrail_ticket", default=None
)


class Ticket:
    """One turn's deadline and abandonment, shared between the HTTP loop and a scoring loop."""

    def __init__(self, timeout_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.timeout_s = timeout_s
        self.deadline = clock() + timeout_s
        self._clock = clock
        self._lock = threading.Lock()
        self._abandoned = False
        self._event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def abandoned(self) -> bool:
        return self._abandoned

    def remaining(self) -> float:
        return max(0.0, self.deadline - self._clock())

    def abandon(self) -> None:
        """The client went away (thread-safe): scoring stops at its next await."""
        with self._lock:
            self._abandoned = True
            if self._loop is not None and self._event is not None:
                self._loop.call_soon_threadsafe(self._event.set)

    def bind(self) -> asyncio.Event:
        """The event that fires on :meth:`abandon`, on the running (scoring) loop."""
        with self._lock:
            if self._event is None:
                self._loop = asyncio.get_running_loop()
                self._event = asyncio.Event()
                if self._abandoned:
                    self._event.set()
            return self._event

    def stop_reason(self) -> str | None:
        if self._abandoned:
            return "abandoned: the client disconnected before the answer was scored"
        if self.remaining() <= 0:
            return f"deadline: scoring took longer than {self.timeout_s:g} s"
        return None


async def bounded_score(
    scorer: Scorer, question: str, answer: str, contexts: Sequence[str], **options: Any
) -> ScoreReport:
    """``scorer.score(...)`` within the current ticket's deadline (see the module docstring)."""
    ticket = CURRENT_TICKET.get()
    if ticket is None:
        report: ScoreReport = await scorer.score(question, answer, contexts, **options)
        return report
    reason = ticket.stop_reason()
    if reason is not None:
        raise ScoringError(reason)
    with watch_call_logs() as logs:  # the task copies the context: its logs land here
        scoring = asyncio.ensure_future(scorer.score(question, answer, contexts, **options))
    left = asyncio.ensure_future(ticket.bind().wait())
    try:
        await asyncio.wait(
            {scoring, left}, timeout=ticket.remaining(), return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        left.cancel()
        if not scoring.done():
            scoring.cancel()
    if not scoring.cancelled() and scoring.done():
        result: ScoreReport = scoring.result()  # its own errors propagate as they are
        return result
    with contextlib.suppress(asyncio.CancelledError):
        await scoring
    made = [call for log in logs for call in log.calls]  # the calls that finished
    raise ScoringError(ticket.stop_reason() or "scoring stopped", calls=made)
