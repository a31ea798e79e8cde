"""The serving core: what ``guardrail serve`` and ``guardrail proxy`` share, in one place.

Both front ends take a request through the same steps, with the same numbers
(:class:`~guardrail.serving.limits.RequestLimits`, declared once for both commands' flags):

1. the API key and the body-size cap, before the body is read
   (:class:`~guardrail.serving.limits.GuardGate`);
2. the body read once, counted before it is parsed, parsed without a traceback for any input,
   and cleaned of characters that cannot be stored (:func:`read_json_body`);
3. the in-flight cap (:meth:`ServingCore.slot`: more requests get 503);
4. the turn's *work* estimated and bounded (:meth:`ServingCore.work_problem`), and the turn
   scored on a fair lane with its own deadline ticket (:meth:`ServingCore.run_turn`): a small
   turn never waits behind a large one, and past ``max_check_seconds`` scoring stops and the
   policy's ``on_error`` rule decides.

Each front end only shapes its replies: ``serve`` as FastAPI's ``{"detail": ...}``, the proxy
as the OpenAI error object, so the ``openai`` SDK shows the message.
Failures are :class:`ServingError` (status, message, kind, headers), whatever the shape.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from guardrail.sanitize import clean_json
from guardrail.scoring.deadline import Ticket
from guardrail.serving.body import BodyError, JsonShape, parse_json, precheck_json
from guardrail.serving.limits import RequestLimits
from guardrail.serving.scheduler import Lanes, estimated_work

__all__ = [
    "DEADLINE_GRACE_S",
    "ServingCore",
    "ServingError",
    "read_json_body",
]

T = TypeVar("T")

#: Extra time past ``max_check_seconds`` before a turn that ignores its deadline (a custom
#: checker, or a judge call that does not return) is cancelled and answered with 503.
DEADLINE_GRACE_S = 10.0


@dataclass
class ServingError(Exception):
    """A request the server answers with ``status`` and a one-line ``message``."""

    status: int
    message: str
    kind: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)


def read_json_body(raw: bytes, shape: JsonShape) -> tuple[Any, int]:
    """The parsed and cleaned body and the number of characters replaced in it; a
    :class:`ServingError` (413 or 422, one line) for any body that cannot be one — too many
    parts, nesting of any depth, invalid UTF-8, invalid JSON."""
    try:
        precheck_json(raw, shape)
        data = parse_json(raw)
    except BodyError as exc:
        raise ServingError(exc.status, exc.detail) from None
    cleaned, replaced = clean_json(data)
    return cleaned, replaced


class ServingCore:
    """Limits, lanes and the in-flight count of one serving process (see the module
    docstring). Build one per app; :meth:`stop` ends its scoring threads."""

    def __init__(self, limits: RequestLimits | None = None) -> None:
        self.limits = limits or RequestLimits()
        self.lanes = Lanes(small=1, large=self.limits.scoring_threads)
        self.in_flight = 0

    @contextlib.contextmanager
    def slot(self, what: str = "requests") -> Iterator[None]:
        """Hold one in-flight slot for the block (see :meth:`acquire`)."""
        self.acquire(what)
        try:
            yield
        finally:
            self.release()

    def acquire(self, what: str = "requests") -> None:
        """Take one in-flight slot until :meth:`release` (a streamed reply holds it until its
        last byte); :class:`ServingError` 503 when all are taken."""
        if self.in_flight >= self.limits.max_in_flight:
            raise ServingError(
                503,
                f"busy: {self.in_flight} {what} in progress; retry shortly",
                "server_busy",
                {"retry-after": "1"},
            )
        self.in_flight += 1

    def release(self) -> None:
        self.in_flight -= 1

    def work(self, answer: str, contexts: list[str]) -> int:
        """The estimated scoring work of a turn (the claims the judge will verify in the answer
        x context characters, :func:`~guardrail.serving.scheduler.estimated_work`)."""
        return estimated_work(answer, contexts)

    def work_problem(self, work: int) -> str | None:
        """Why ``work`` is over the budget (``max_work``), or ``None``."""
        limit = self.limits.max_work
        if work <= limit:
            return None
        return (
            f"estimated scoring work {work} (answer claims x context characters + 10 x answer"
            " characters) is over"
            f" the limit of {limit} (--max-work): send fewer or shorter contexts,"
            " or a shorter answer"
        )

    def ticket(self) -> Ticket:
        """A fresh deadline ticket of ``max_check_seconds``."""
        return Ticket(self.limits.max_check_seconds)

    async def run_turn(
        self, coro: Coroutine[Any, Any, T], *, work: int, ticket: Ticket | None = None
    ) -> T:
        """Run a turn's coroutine on the lane its ``work`` calls for, with ``ticket`` (a new
        one if not given) current there; a turn that ignores its deadline altogether is
        cancelled after :data:`DEADLINE_GRACE_S` more and answered with 503."""
        ticket = ticket or self.ticket()
        limit = self.limits.max_check_seconds
        try:
            return await asyncio.wait_for(
                self.lanes.run(coro, ticket=ticket, small=work <= self.limits.small_work),
                timeout=limit + DEADLINE_GRACE_S,
            )
        except asyncio.TimeoutError:
            raise ServingError(
                503, f"the check did not finish within {limit} s (--max-check-seconds)"
            ) from None

    def stop(self) -> None:
        self.lanes.stop()
