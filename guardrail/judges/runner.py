"""Run judge calls with a timeout, retries with backoff and jitter, and a concurrency limit.

Backends stay one-method simple; everything about *how* a call is made lives here, once:

* per-call timeout (``asyncio.wait_for``) -> :class:`~guardrail.exceptions.JudgeTimeout`; the
  expired call's task is cancelled and awaited before anything else happens, so its HTTP
  request is closed (a server that watches its connection stops generating) before any retry;
* a per-turn deadline (:func:`turn_deadline`, opened by the scorers for each answer): a call
  never waits past it, and no retry starts once it has passed;
* retries of retryable errors (timeouts, 429, 5xx) with exponential backoff and full jitter:
  before try ``n`` (n >= 2) sleep ``uniform(0, min(max_backoff, base * 2 ** (n - 2)))``;
* a semaphore bounding calls in flight, so one stage's calls run concurrently up to the limit;
* a :class:`~guardrail.models.JudgeCall` record for every call, successful or not.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import random
import time
import traceback
import weakref
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

from pydantic import Field

from guardrail.exceptions import JudgeBugError, JudgeError, JudgeTimeout
from guardrail.judges.base import Judge, JudgeRequest, JudgeResponse
from guardrail.logs import get_logger
from guardrail.models import JudgeCall
from guardrail.validation import Settings

_log = get_logger(__name__)


class RetryPolicy(Settings):
    """How hard to try. Defaults suit hosted APIs; tests pass tiny backoffs.

    The one definition of these fields and their bounds: a policy's ``scorer`` block carries
    them too (flat), by inheriting this model.
    """

    timeout_s: float = Field(
        default=60.0, gt=0.0, le=3_600.0, description="per judge call, in seconds"
    )
    max_attempts: int = Field(default=4, ge=1, le=100, description="tries per judge call")
    backoff_base_s: float = Field(
        default=0.5, ge=0.0, le=600.0, description="first retry waits up to this (doubling after)"
    )
    backoff_max_s: float = Field(
        default=8.0, ge=0.0, le=3_600.0, description="longest wait between tries"
    )
    max_concurrency: int = Field(default=64, ge=1, le=10_000, description="judge calls in flight")
    turn_timeout_s: float | None = Field(
        default=None,
        gt=0.0,
        le=86_400.0,
        description="deadline for all judge calls of one answer, in seconds (null: none); "
        "when it passes, calls in flight are cancelled and the answer gets the policy's "
        "on-error decision",
    )

    @property
    def retry(self) -> RetryPolicy:
        """Just the retry fields, as a plain :class:`RetryPolicy`."""
        return RetryPolicy(**{name: getattr(self, name) for name in RetryPolicy.model_fields})


_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "guardrail_turn_deadline", default=None
)


@contextlib.contextmanager
def turn_deadline(seconds: float | None) -> Iterator[float | None]:
    """Bound every :meth:`JudgeRunner.call` inside the block (and the tasks it starts) by a
    deadline ``seconds`` from now (``None``: no new deadline). An enclosing, earlier deadline
    is kept. Yields the deadline (``time.monotonic()`` clock) in force."""
    current = _DEADLINE.get()
    if seconds is None:
        yield current
        return
    mine = time.monotonic() + seconds
    token = _DEADLINE.set(mine if current is None else min(current, mine))
    try:
        yield _DEADLINE.get()
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current turn deadline (``None`` when there is none)."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


class JudgeCallError(JudgeError):
    """Raised by :meth:`JudgeRunner.call` when a call failed for good; ``call`` records it."""

    def __init__(self, cause: JudgeError, call: JudgeCall) -> None:
        super().__init__(str(cause), status_code=cause.status_code)
        self.cause = cause
        self.call = call


@dataclass
class JudgeRunner:
    """Calls one judge under a :class:`RetryPolicy`.

    ``sleep`` and ``rng`` are injectable so tests can check the backoff schedule without waiting.
    """

    judge: Judge
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random = field(default_factory=random.Random)
    _semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = field(
        default_factory=weakref.WeakKeyDictionary, init=False, repr=False
    )

    async def _sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            sem = asyncio.Semaphore(self.policy.max_concurrency)
            self._semaphores[loop] = sem
        return sem

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        """A place under the concurrency limit, waited for no longer than the turn's deadline
        (when it passes first, the block runs with no time left and makes no try)."""
        semaphore = self._semaphore()
        left = remaining()
        try:
            if left is None:
                await semaphore.acquire()
            else:
                await asyncio.wait_for(semaphore.acquire(), max(left, 0.0))
        except asyncio.TimeoutError:
            yield  # remaining() is now <= 0: the caller records the deadline, makes no call
            return
        try:
            yield
        finally:
            semaphore.release()

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before try number ``attempt`` (2, 3, ...)."""
        cap = min(self.policy.backoff_max_s, self.policy.backoff_base_s * 2 ** (attempt - 2))
        return self.rng.uniform(0.0, cap)

    async def call(self, stage: str, request: JudgeRequest) -> tuple[JudgeResponse, JudgeCall]:
        """Make one call; return the response and its record, or raise :class:`JudgeCallError`."""
        started = time.perf_counter()
        last: JudgeError | None = None
        attempt = 0
        async with self._slot():
            for attempt in range(1, self.policy.max_attempts + 1):
                left = remaining()
                if left is not None and left <= 0:
                    attempt -= 1
                    break  # the turn's deadline passed while waiting for a place
                if attempt > 1:
                    pause = self.backoff(attempt)
                    left = remaining()
                    if left is not None and left <= pause:
                        attempt -= 1
                        break  # no time left for another try before the turn's deadline
                    await self._sleep(pause)
                timeout, cause = self.policy.timeout_s, "the call's timeout"
                left = remaining()
                if left is not None and left < timeout:
                    timeout, cause = max(left, 0.0), "the turn's deadline"
                try:
                    # wait_for cancels the call on expiry and waits for the cancellation to
                    # finish: the HTTP request is closed before the next try is sent.
                    response = await asyncio.wait_for(self.judge.complete(request), timeout)
                except asyncio.TimeoutError:
                    last = JudgeTimeout(
                        f"{self.judge.name}: no answer within {timeout:g}s ({cause})"
                    )
                except JudgeError as exc:
                    last = exc
                except Exception as exc:  # a backend bug must not lose the audit trail
                    _log.error(
                        "judge raised an unexpected exception",
                        judge=self.judge.name,
                        error=repr(exc),
                        traceback=traceback.format_exc(),
                    )
                    last = JudgeBugError(
                        f"{self.judge.name} raised {type(exc).__name__} (a bug in the judge or "
                        f"its plug-in, not a judge failure): {exc}"
                    )
                else:
                    return response, JudgeCall(
                        stage=stage,
                        judge=self.judge.name,
                        model=response.model,
                        prompt_tokens=response.prompt_tokens,
                        completion_tokens=response.completion_tokens,
                        latency_s=time.perf_counter() - started,
                        attempts=attempt + response.requests - 1,
                        cached=response.cached,
                        cached_prompt_tokens=response.cached_prompt_tokens,
                        usage_reported=response.usage_reported,
                    )
                retry = last.retryable and attempt < self.policy.max_attempts
                _log.log(
                    logging.INFO if retry else logging.WARNING,
                    "judge call failed",
                    judge=self.judge.name,
                    stage=stage,
                    attempt=attempt,
                    retry=retry,
                    error=f"{type(last).__name__}: {last}",
                )
                if not last.retryable:
                    break
        if last is None:
            last = JudgeTimeout(f"{self.judge.name}: the turn's deadline passed before a try")
        record = JudgeCall(
            stage=stage,
            judge=self.judge.name,
            latency_s=time.perf_counter() - started,
            attempts=attempt,
            ok=False,
            error=f"{type(last).__name__}: {last}",
        )
        raise JudgeCallError(last, record)
