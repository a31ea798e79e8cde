"""Run policy test cases through a real :class:`~guardrail.guard.Guard` and compare.

The guard is the production one (policy engine, topic classifier, scorer, actions); only its
outside world is replaced: escalations go to an in-memory sink (so nothing is written to a
review queue), and no audit record is written. A case whose turn raises is an *error*, and an
error fails the run like a failed expectation: a test that could not run did not pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guardrail.actions.escalate import Escalator
from guardrail.guard import Guard
from guardrail.models import EscalationCase, GuardResult
from guardrail.policy import Policy, load_policy
from guardrail.policytest.cases import Case, CaseFile, Expect

__all__ = ["CaseResult", "check_expectation", "run_cases"]


class _MemorySink:
    """Keeps escalated cases in a list: the test runner's review queue."""

    name = "memory"

    def __init__(self) -> None:
        self.cases: list[EscalationCase] = []

    async def send(self, case: EscalationCase) -> None:
        self.cases.append(case)


@dataclass
class CaseResult:
    """One case's outcome: ``failures`` lists each unmet expectation; ``error`` a crash."""

    name: str
    seconds: float
    observed: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and self.error is None


def _observed(result: GuardResult) -> dict[str, Any]:
    d = result.decision
    return {
        "topic": d.topic,
        "action": d.action,
        "actions": list(d.actions),
        "flagged": d.flagged,
        "scored": d.score is not None,
        "score": d.score,
        "queue": d.queue,
        "reason": d.reason,
    }


def check_expectation(expect: Expect, seen: dict[str, Any]) -> list[str]:
    """Each unmet expectation as one line ``key: expected X, got Y``."""
    out: list[str] = []
    for key in ("topic", "action", "flagged", "scored", "queue"):
        want = getattr(expect, key)
        if want is not None and seen[key] != want:
            out.append(f"{key}: expected {want!r}, got {seen[key]!r}")
    missing = [a for a in expect.actions_include if a not in seen["actions"]]
    if missing:
        out.append(f"actions: expected to include {missing}, got {seen['actions']}")
    for text in expect.reason_contains:
        if text not in seen["reason"]:
            out.append(f"reason: expected to contain {text!r}, got {seen['reason']!r}")
    score = seen["score"]
    if expect.score_at_least is not None and (score is None or score < expect.score_at_least):
        out.append(f"score: expected >= {expect.score_at_least}, got {score}")
    if expect.score_below is not None and (score is None or score >= expect.score_below):
        out.append(f"score: expected < {expect.score_below}, got {score}")
    return out


def _regenerator(case: Case) -> Callable[[str], dict[str, Any]] | None:
    """The chatbot's second answer, on the case's own contexts."""
    text = case.regenerated
    if text is None:
        return None
    return lambda instruction: {"answer": text, "contexts": list(case.contexts)}


def _run_one(guard: Guard, case: Case) -> CaseResult:
    started = time.perf_counter()
    try:
        result = guard.check(
            case.question, case.answer, case.contexts, regenerate=_regenerator(case)
        )
    except Exception as exc:  # a case that cannot run is reported, never passed
        return CaseResult(
            case.name, time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}"
        )
    seen = _observed(result)
    failures = check_expectation(case.expect, seen)
    return CaseResult(case.name, time.perf_counter() - started, seen, failures)


def run_cases(
    policy: Policy | str | Path,
    cases: CaseFile,
    *,
    judge: str | None = None,
    only: str | None = None,
) -> list[CaseResult]:
    """Run every case (or the one named ``only``) under ``policy``, one result per case.

    ``judge`` is a judge spec (``local``, ``openai:gpt-4.1-mini`` ...) replacing the policy's.
    """
    from guardrail.scoring.factory import judge_for

    loaded = policy if isinstance(policy, Policy) else load_policy(policy)
    guard = Guard(
        loaded,
        judge=judge_for(loaded.scorer, judge) if judge else None,
        escalator=Escalator(default=_MemorySink()),
    )
    chosen = [c for c in cases.cases if only is None or c.name == only]

    try:
        return [_run_one(guard, case) for case in chosen]
    finally:
        guard.close()
