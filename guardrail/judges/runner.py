"""Run judge calls with a timeout, retries with backoff and jitter, and a concurrency limit.

Backends stay one-method simple; everything about *how* a call is made lives here, once:

* per-call timeout (``asyncio.wait_for``) -> :class:`~guardrail.exceptions.JudgeTimeout`;
* retries of retryable errors (timeouts, 429, 5xx) with exponential backoff and full jitter:
  before try ``n`` (n >= 2) sleep ``uniform(0, min(max_backoff, base * 2 ** (n - 2)))``;
* a semaphore bounding calls in flight, so one stage's calls run concurrently up to the limit;
* a :class:`~guardrail.models.JudgeCall` record for every call, successful or not.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import weakref
from dataclasses import dataclass, field

from pydantic import Field

from guardrail.exceptions import JudgeError, JudgeTimeout
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

    @property
    def retry(self) -> RetryPolicy:
        """Just the retry fields, as a plain :class:`RetryPolicy`."""
        return RetryPolicy(**{name: getattr(self, name) for name in RetryPolicy.model_fields})


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

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before try number ``attempt`` (2, 3, ...)."""
        cap = min(self.policy.backoff_max_s, self.policy.backoff_base_s * 2 ** (attempt - 2))
        return self.rng.uniform(0.0, cap)

    async def call(self, stage: str, request: JudgeRequest) -> tuple[JudgeResponse, JudgeCall]:
        """Make one call; return the response and its record, or raise :class:`JudgeCallError`."""
        started = time.perf_counter()
        last: JudgeError | None = None
        attempt = 0
        async with self._semaphore():
            for attempt in range(1, self.policy.max_attempts + 1):
                if attempt > 1:
                    await self._sleep(self.backoff(attempt))
                try:
                    response = await asyncio.wait_for(
                        self.judge.complete(request), timeout=self.policy.timeout_s
                    )
                except asyncio.TimeoutError:
                    last = JudgeTimeout(
                        f"{self.judge.name}: no answer within {self.policy.timeout_s:g}s"
                    )
                except JudgeError as exc:
                    last = exc
                except Exception as exc:  # a backend bug must not lose the audit trail
                    last = JudgeError(f"{self.judge.name}: {type(exc).__name__}: {exc}")
                else:
                    return response, JudgeCall(
                        stage=stage,
                        judge=self.judge.name,
                        model=response.model,
                        prompt_tokens=response.prompt_tokens,
                        completion_tokens=response.completion_tokens,
                        latency_s=time.perf_counter() - started,
                        attempts=attempt,
                        cached=response.cached,
                        cached_prompt_tokens=response.cached_prompt_tokens,
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
        assert last is not None
        record = JudgeCall(
            stage=stage,
            judge=self.judge.name,
            latency_s=time.perf_counter() - started,
            attempts=attempt,
            ok=False,
            error=f"{type(last).__name__}: {last}",
        )
        raise JudgeCallError(last, record)
