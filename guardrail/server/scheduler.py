"""Scoring that no request can monopolise: work estimates, deadlines, abandonment, lanes.

The cost of scoring one turn with the offline judge grows as *factoids x context characters*:
each factoid's variants are verified against every passage, so an answer of a few hundred
sentences against a megabyte of passages would take minutes, and every request scored on the
same event loop would wait for it. Four pieces bound that:

* :func:`estimated_work` — sentences of the answer x characters of all contexts, computed
  before any scoring. The service refuses a turn above ``RequestLimits.max_work`` with 413
  naming the limit.
* :class:`Ticket` — a per-request deadline and an *abandoned* flag (the client disconnected).
  :class:`BoundedScorer` wraps the guard's scorer: when the deadline passes or the client
  leaves, scoring stops at its next await and the scorer raises
  :class:`~guardrail.exceptions.ScoringError`, so the guard decides by the topic's
  ``on_error`` rule (sensitive topics fail closed: escalated), audits the turn with the reason
  (``deadline ...`` or ``abandoned ...``) and returns — the turn is never lost.
* :class:`Lanes` — scoring threads, each with its own event loop. Turns whose estimated work
  is at most ``RequestLimits.small_work`` run on the *small* lane's thread, which large turns
  never enter; large turns run on the *large* lane (``RequestLimits.scoring_threads`` threads,
  default 1), where they interleave at every judge call, at most two at a time per thread
  (the others wait their turn in arrival order). A thread busy with a 3-second judge
  call still gives up the interpreter every millisecond (see
  :data:`~guardrail.server.app.SWITCH_INTERVAL_S`), so a small turn on its own thread is
  answered in a fraction of a second while large ones are scored.

Why threads and why one large-lane thread, from ``python -m benchmarks.service_fairness`` on a
2-core machine shared with other work (load average 13-15), 4 maximal checks at once: with
three large-lane threads small checks had p99 0.75 s and /healthz p99 497 ms; with one, p99
0.36 s and 249 ms (the large checks took 14 s instead of 9 s each). Every CPU-bound thread
competes with the HTTP event loop for the interpreter lock, so fewer is better for the loop;
all on one shared loop (before the lanes) a small check waited for the large one to finish.
Processes would take the scoring off the HTTP process's interpreter lock altogether, but the
guard (its review queue, audit trail, models and judge connection pools) lives once per
process; to use more cores run ``guardrail serve --workers N``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from guardrail._sync import LoopThread
from guardrail.exceptions import ScoringError
from guardrail.models import ScoreReport
from guardrail.scoring.base import watch_call_logs

__all__ = ["BoundedScorer", "Lanes", "Ticket", "bound_scoring", "estimated_work"]

T = TypeVar("T")

#: The ticket of the turn being scored on this task (set by :meth:`Lanes.run`).
CURRENT_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar(
    "guardrail_ticket", default=None
)


def estimated_work(answer: str, contexts: Sequence[str]) -> int:
    """Sentences of ``answer`` (at least one) x characters of all ``contexts`` (at least one).

    Every sentence yields at least one factoid and every factoid is verified against every
    passage, so this grows with the real cost; it is computed in linear time before scoring.
    """
    from guardrail.text.sentences import split_sentences

    sentences = max(1, len(split_sentences(answer, rules="plain")))
    return sentences * max(1, sum(map(len, contexts)))


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

    def _bind(self) -> asyncio.Event:
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


class BoundedScorer:
    """A scorer that honours the current :class:`Ticket` (see the module docstring).

    Everything but :meth:`score` is the wrapped scorer's (``method``, ``localizer``, ...).
    Without a ticket (a call outside the service) it scores exactly like the wrapped scorer.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def score(
        self, question: str, answer: str, contexts: Sequence[str], **options: Any
    ) -> ScoreReport:
        ticket = CURRENT_TICKET.get()
        if ticket is None:
            report: ScoreReport = await self.inner.score(question, answer, contexts, **options)
            return report
        reason = ticket.stop_reason()
        if reason is not None:
            raise ScoringError(reason)
        with watch_call_logs() as logs:  # the task copies the context: its logs land here
            scoring = asyncio.ensure_future(self.inner.score(question, answer, contexts, **options))
        left = asyncio.ensure_future(ticket._bind().wait())
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


def bound_scoring(checker: Any) -> Any:
    """Wrap ``checker.scorer`` (a :class:`~guardrail.guard.Guard`'s) in a
    :class:`BoundedScorer` once; other checkers are returned unchanged."""
    scorer = getattr(checker, "scorer", None)
    if scorer is not None and not isinstance(scorer, BoundedScorer) and hasattr(scorer, "score"):
        checker.scorer = BoundedScorer(scorer)
    return checker


@dataclass
class _Lane:
    name: str
    threads: list[LoopThread]
    load: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.load = [0] * len(self.threads)


class Lanes:
    """``small`` scoring threads for cheap turns, ``large`` ones for the rest.

    Each turn goes to the least-loaded thread of its lane; a thread's event loop scores its
    turns concurrently (they interleave at every judge call). The large lane admits at most
    ``per_thread`` turns per thread at once, the others wait in arrival order: a loop shared by
    many large turns would reach each one's deadline only after every other turn's next judge
    call. A turn whose deadline passes (or whose client leaves) while it waits is let in at
    once: its scoring stops before it starts and the guard decides by ``on_error``.
    """

    def __init__(self, *, small: int = 1, large: int = 1, per_thread: int = 2) -> None:
        if small < 1 or large < 1 or per_thread < 1:
            raise ValueError("each lane needs at least one thread, each thread one turn")
        self.small = _Lane("small", [LoopThread(f"guardrail-small-{i}") for i in range(small)])
        self.large = _Lane("large", [LoopThread(f"guardrail-large-{i}") for i in range(large)])
        self.capacity = large * per_thread
        self._slots: asyncio.Semaphore | None = None
        self._lock = threading.Lock()

    async def _admit(self, ticket: Ticket) -> bool:
        """Wait for a large-lane slot; False when the ticket stopped first (no slot taken)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.capacity)
        acquire = asyncio.ensure_future(self._slots.acquire())
        try:
            while not acquire.done() and ticket.stop_reason() is None:
                await asyncio.wait({acquire}, timeout=min(0.25, max(ticket.remaining(), 0.01)))
        finally:
            if not acquire.done():
                acquire.cancel()
        return acquire.done() and not acquire.cancelled()

    async def run(self, coro: Coroutine[Any, Any, T], *, ticket: Ticket, small: bool) -> T:
        """Await ``coro`` on a thread of the right lane, with ``ticket`` current there."""
        lane = self.small if small else self.large
        try:
            admitted = False if small else await self._admit(ticket)
        except BaseException:
            coro.close()
            raise
        with self._lock:
            index = min(range(len(lane.threads)), key=lane.load.__getitem__)
            lane.load[index] += 1
        try:
            return await lane.threads[index].submit(_with_ticket(coro, ticket))
        finally:
            with self._lock:
                lane.load[index] -= 1
            if admitted and self._slots is not None:
                self._slots.release()

    def stop(self) -> None:
        for thread in [*self.small.threads, *self.large.threads]:
            thread.stop()


async def _with_ticket(coro: Coroutine[Any, Any, T], ticket: Ticket) -> T:
    token = CURRENT_TICKET.set(ticket)
    try:
        return await coro
    finally:
        CURRENT_TICKET.reset(token)
