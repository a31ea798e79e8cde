"""Run one scorer stage: its judge calls concurrently, every call recorded, failures raised once.

Every built-in scorer is a sequence of stages (decompose, mutate, verify, ...), each one
concurrent round of judge calls. This module is the one place that runs a stage:

* :func:`request` makes one call through a :class:`~guardrail.judges.runner.JudgeRunner`; a
  call that failed for good is recorded in the run's :class:`~guardrail.scoring.base.CallLog`
  before the error propagates;
* :func:`run_stage` awaits a stage's jobs together, times the stage, and when a job failed
  records the calls the successful jobs still hold, then raises: a judge failure becomes a
  :class:`~guardrail.exceptions.ScoringError` carrying *every* call made so far; anything else
  (a bug) propagates unchanged, so it is never mistaken for a judge outage.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

from guardrail.exceptions import ScoringError
from guardrail.judges.base import JudgeRequest, JudgeResponse
from guardrail.judges.runner import JudgeCallError, JudgeRunner
from guardrail.models import JudgeCall, StageTiming
from guardrail.scoring.base import CallLog

_T = TypeVar("_T")


def _recorded(_result: object) -> Iterable[JudgeCall]:
    """The default for jobs that record their own calls: nothing is left to record."""
    return ()


async def request(
    log: CallLog, runner: JudgeRunner, stage: str, judge_request: JudgeRequest
) -> tuple[JudgeResponse, JudgeCall]:
    """One call; a call that failed after the runner's retries is recorded, then re-raised.

    The successful call is returned, not recorded: its caller records it once the reply is
    parsed (with the parse failure, if any).
    """
    try:
        return await runner.call(stage, judge_request)
    except JudgeCallError as exc:
        log.record(exc.call)
        raise


async def run_stage(
    log: CallLog,
    scorer: str,
    name: str,
    jobs: Sequence[Awaitable[_T]],
    *,
    unrecorded: Callable[[_T], Iterable[JudgeCall]] = _recorded,
) -> list[_T]:
    """The results of ``jobs`` in order, after all of them finished.

    ``unrecorded(result)`` names the calls a successful job returned without recording them
    (the caller records those itself on success); on failure they are recorded here first, so
    the raised :class:`ScoringError` holds every call made. The stage's timing counts every call.
    """
    before = len(log.calls)
    started = time.perf_counter()
    results = await asyncio.gather(*jobs, return_exceptions=True)
    done = [r for r in results if not isinstance(r, BaseException)]
    pending = [call for result in done for call in unrecorded(result)]
    log.stages.append(
        StageTiming(
            stage=name,
            seconds=time.perf_counter() - started,
            calls=len(log.calls) - before + len(pending),
        )
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    if not errors:
        return done
    log.calls.extend(pending)
    for error in errors:
        if not isinstance(error, JudgeCallError):
            raise error
    first = errors[0]
    assert isinstance(first, JudgeCallError)
    tries = max(e.call.attempts for e in errors if isinstance(e, JudgeCallError))
    after = f" after {tries} attempts" if tries > 1 else " (not retryable)"
    raise ScoringError(
        f"{scorer}: {name} stage failed: {len(errors)} judge call(s) failed{after}; "
        f"first: {first.call.error}",
        calls=log.calls,
        stage=name,
    )
