"""Re-score logged turns under a policy: a new score and the decision the policy would take.

Per turn this does what :class:`~guardrail.guard.Guard` does for a live turn up to its first
decision — classify the topics (or take the log's ``topic``), pick the strictest rule, score
with that rule's threshold (and cascade), :meth:`~guardrail.policy.engine.PolicyEngine.decide`
— and nothing after it: no regeneration, no escalation, no audit record. The new decision is
therefore the one for the answer as logged (the first answer; for a turn the guard regenerated,
the old decision was taken on a later answer, which the audit log does not keep).

:class:`RescoreSpec` carries the validated policy as JSON, so a Ray worker builds the same
scorer, classifier and engine as the local run (``guardrail rescore --ray``).
"""

from __future__ import annotations

import inspect
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardrail._fs import write_private_text
from guardrail.evaluation.runner import ProgressLine, Score
from guardrail.evaluation.turns import Turn
from guardrail.models import TopicLabel
from guardrail.policy.schema import Policy


class TurnResult(ProgressLine):
    """One re-scored turn (a progress-file line): the new score and decision, or the error."""

    kind: str = "turn"
    score: Score | None = None
    threshold: Score | None = None
    action: str | None = None
    flagged: bool | None = None
    topic: str | None = None
    reason: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class RescoreSpec:
    """The policy as validated JSON: what each worker builds its scorer and engine from."""

    policy: dict[str, Any]

    @classmethod
    def of(cls, policy: Policy) -> RescoreSpec:
        return cls(policy.model_dump(mode="json"))

    def build(self) -> Callable[[Turn], Awaitable[TurnResult]]:
        return turn_rescorer(Policy.model_validate(self.policy))


def turn_rescorer(policy: Policy) -> Callable[[Turn], Awaitable[TurnResult]]:
    """A function re-scoring one turn under ``policy`` (scorer, topics and rules built once)."""
    from guardrail.policy.engine import PolicyEngine
    from guardrail.scoring.factory import build_scorer
    from guardrail.topics import TopicClassifier

    scorer = build_scorer(policy.scorer)
    engine = PolicyEngine(policy)
    classifier = TopicClassifier.from_policy(policy)
    cascade_ok = "cascade" in inspect.signature(scorer.score).parameters
    known = {rule.name for rule in policy.topics}

    def topics_of(turn: Turn, question: str, contexts: list[str]) -> list[TopicLabel]:
        if turn.topic is not None and turn.topic in known:
            rule = policy.topic(turn.topic)
            return [
                TopicLabel(
                    label=rule.name, confidence=1.0, source="keyword", sensitivity=rule.sensitivity
                )
            ]
        return classifier.classify(question, contexts)

    async def rescore(turn: Turn) -> TurnResult:
        started = time.perf_counter()
        question, answer = turn.question or "", turn.answer or ""
        contexts = list(turn.contexts)
        try:
            topics = topics_of(turn, question, contexts)
            rule = engine.rule_for(topics)
            cascade = engine.cascade_for(topics) if cascade_ok else None
            options = {} if cascade is None else {"cascade": cascade}
            report = await scorer.score(
                question, answer, contexts, threshold=rule.threshold, **options
            )
        except Exception as exc:  # judges down (or a bug): counted, retried on the next run
            return TurnResult(
                id=turn.id,
                ok=False,
                error=f"{type(exc).__name__}: {exc}"[:500],
                seconds=time.perf_counter() - started,
            )
        decision = engine.decide(report, topics)
        return TurnResult(
            id=turn.id,
            ok=True,
            score=decision.score,
            threshold=decision.threshold,
            action=decision.action,
            flagged=decision.flagged,
            topic=decision.topic,
            reason=decision.reason,
            seconds=time.perf_counter() - started,
        )

    return rescore


def turn_line(turn: Turn, result: TurnResult | None) -> dict[str, Any]:
    """One line of the output file: the old outcome next to the new one."""
    line: dict[str, Any] = {
        "kind": "turn",
        "id": turn.id,
        "line": turn.line,
        "rescored": result is not None and result.ok,
        "old": {"score": turn.old_score, "action": turn.old_action, "topic": turn.old_topic},
        "new": None,
        "changed": None,
        "attempts": turn.attempts,
    }
    if turn.problem is not None:
        line["not_rescorable"] = turn.problem
    elif result is None:
        line["error"] = "not scored (the run was interrupted)"
    elif not result.ok:
        line["error"] = result.error
    else:
        line["new"] = {
            "score": result.score,
            "threshold": result.threshold,
            "action": result.action,
            "flagged": result.flagged,
            "topic": result.topic,
            "reason": result.reason,
        }
        if turn.old_action is not None:
            line["changed"] = turn.old_action != result.action
    return line


def summary_of(lines: Sequence[dict[str, Any]], *, policy: Policy, log: str) -> dict[str, Any]:
    """Counts over the output lines: re-scored, not re-scorable (by reason), failed, and how
    many decisions changed (among turns that had an old decision), old -> new."""
    rescored = [ln for ln in lines if ln["rescored"]]
    compared = [ln for ln in rescored if ln["changed"] is not None]
    changes = Counter(
        f"{ln['old']['action']} -> {ln['new']['action']}" for ln in compared if ln["changed"]
    )
    reasons = Counter(ln["not_rescorable"] for ln in lines if "not_rescorable" in ln)
    return {
        "kind": "summary",
        "log": log,
        "policy": policy.name,
        "policy_hash": policy.content_hash,
        "turns": len(lines),
        "rescored": len(rescored),
        "not_rescorable": sum(reasons.values()),
        "not_rescorable_reasons": dict(sorted(reasons.items())),
        "failed": sum(1 for ln in lines if "error" in ln),
        "compared": len(compared),
        "decisions_changed": sum(changes.values()),
        "changes": dict(sorted(changes.items())),
        "flagged_now": sum(1 for ln in rescored if ln["new"]["flagged"]),
    }


def write_output(path: Path, lines: Sequence[dict[str, Any]], summary: dict[str, Any]) -> None:
    """Write the turn lines then the summary line, atomically (a temporary file renamed),
    readable by the owner only."""
    text = "".join(
        json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n" for obj in [*lines, summary]
    )
    write_private_text(path, text, "--out")  # the lines hold turn text: owner-only
