"""Scoring that no request can monopolise: work estimates, deadlines, abandonment, lanes.

The cost of scoring one turn with the offline judge grows as *factoids x context characters*:
each factoid's variants are verified against every passage, so an answer of a few hundred
sentences against a megabyte of passages would take minutes, and every request scored on the
same event loop would wait for it. Four pieces bound that:

* :func:`estimated_work` — the claims the judge will verify in the answer (its sentences,
  split into clauses as the offline decomposer splits them) x characters of all contexts,
  computed before any scoring. The service refuses a turn above ``RequestLimits.max_work`` with 413
  naming the limit.
* :class:`~guardrail.scoring.deadline.Ticket` — a per-request deadline and an *abandoned*
  flag (the client disconnected), current for that turn only: the turn pipeline's score step
  honours it, so when the deadline passes or the client leaves, scoring stops at its next
  await and raises
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
import re
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from guardrail._sync import LoopThread
from guardrail.scoring.deadline import CURRENT_TICKET, Ticket

__all__ = [
    "ANSWER_CHAR_WORK",
    "CURRENT_TICKET",
    "Lanes",
    "Ticket",
    "estimated_claims",
    "estimated_work",
]

T = TypeVar("T")


#: Where the offline decomposer splits a sentence into more claims: at "; " and before a
#: coordinating word (a bound: not every "and" joins two claims).
_CLAUSE_BREAK = re.compile(r";\s")
_COORDINATOR = re.compile(r"\b(?:and|but|whereas|while|yet)\b", re.IGNORECASE)


def estimated_claims(answer: str) -> int:
    """How many factoids the offline decomposer can make of ``answer`` (at least one): each
    sentence, split at every ``"; "``, and each piece split at up to ``MAX_SPLIT_DEPTH + 1``
    coordinating words, at most ``MAX_FACTOIDS`` in all. Linear in the answer's length; an
    upper bound for the answers it was measured on (``benchmarks.work_estimate``)."""
    from guardrail.judges.local.decompose import MAX_FACTOIDS, MAX_SPLIT_DEPTH
    from guardrail.text.sentences import split_sentences

    claims = 0
    for start, end in split_sentences(answer, rules="plain"):
        for piece in _CLAUSE_BREAK.split(answer[start:end]):
            if piece.strip():
                coordinators = sum(1 for _ in _COORDINATOR.finditer(piece))
                claims += 1 + min(coordinators, MAX_SPLIT_DEPTH + 1)
            if claims >= MAX_FACTOIDS:
                return MAX_FACTOIDS
    return max(1, claims)


#: Work counted per character of the answer, beside claims x context characters: a claim is
#: decomposed, varied and aligned in time that grows faster than its length (one claim of
#: 100,000 characters took 3 s against a one-line context, of 10,000 characters 0.2 s).
ANSWER_CHAR_WORK = 10


def estimated_work(answer: str, contexts: Sequence[str]) -> int:
    """Claims the judge will verify (:func:`estimated_claims`) x characters of all
    ``contexts`` (at least one), plus :data:`ANSWER_CHAR_WORK` per answer character.

    Every factoid (with its variants) is verified against every passage, so this grows with
    the real cost; it is computed in linear time before scoring. Sentences alone would not
    do: one "sentence" of 200 clauses joined by ``"; "`` is 200 factoids, and one claim of
    100,000 characters costs seconds against any context.
    """
    claims = estimated_claims(answer) * max(1, sum(map(len, contexts)))
    return claims + ANSWER_CHAR_WORK * len(answer)


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
