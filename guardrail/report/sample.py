"""Generate an audit log and a review history with a known truth, through the real writers.

``write_history`` decides every turn with the real :class:`~guardrail.policy.PolicyEngine`,
writes it with :meth:`AuditRecord.from_result` through the trail's ``append`` (hash chain
included), sends escalated turns to a real :class:`~guardrail.queues.ReviewQueue` and lets
simulated reviewers claim and resolve them with the queue's own state machine. Only the clock
is simulated: turns are spread over ``days``, and the queue's ``clock`` stamps waiting and
handling times drawn per queue.

The truth is known by construction: a turn's answer is hallucinated when its score is at or
above the topic's ``true_threshold`` (each label flipped with probability ``label_noise``),
and a reviewer rejects or edits a hallucinated answer and approves a faithful one. That makes
the generator the test bed of ``guardrail report`` (figures a test can recompute) and of
``guardrail calibrate --from-reviews`` (a threshold it must recover). It is test and demo
data, never a substitute for a real log.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from guardrail.audit.record import AuditRecord
from guardrail.audit.trail import AuditTrail
from guardrail.models import (
    EscalationCase,
    Factoid,
    GuardResult,
    JudgeCall,
    ParseCause,
    ScoreReport,
    TopicLabel,
    Usage,
)
from guardrail.policy import Policy, PolicyEngine
from guardrail.queues.review_queue import ReviewQueue

__all__ = ["HistoryTruth", "write_history"]

_CLAIMS = (
    "The return window is 30 days.",
    "Paracetamol is safe in every trimester.",
    "The office closes at 18:00 on Fridays.",
    "Refugee status is reviewed after five years.",
    "Students may work 20 hours a week during term.",
    "The maximum adult dose is 4 g a day.",
    "Appeals must be lodged within 14 days.",
    "Standard delivery takes three working days.",
)
_CAUSES: tuple[ParseCause, ...] = ("empty", "unparsable", "placeholder", "truncated")


@dataclass
class HistoryTruth:
    """What the generator wrote, to compare the report and the calibration against."""

    turns: int = 0
    decisions: dict[str, dict[str, int]] = field(default_factory=dict)  # topic -> action -> n
    escalated: int = 0
    resolved: int = 0
    overturned: int = 0  # resolved as approved
    failed_calls: int = 0
    unusable_calls: int = 0
    start: str = ""
    end: str = ""


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class _Clock:
    """The queue's clock: returns whatever time the generator set last."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> str:
        return self.now.isoformat(timespec="microseconds")


def _report(rng: random.Random, score: float, threshold: float, judge_fail: float) -> ScoreReport:
    n = rng.randint(1, 3)
    top = rng.randrange(n)
    factoids: list[Factoid] = []
    answer_len = 0
    for i in range(n):
        claim = rng.choice(_CLAIMS)
        s = score if i == top else round(rng.uniform(0.0, score), 3)
        span = (answer_len, answer_len + len(claim))
        answer_len += len(claim) + 1
        factoids.append(
            Factoid(
                index=i,
                text=claim,
                spans=[span],
                aligned=True,
                alignment=1.0,
                score=s,
                flagged=s >= threshold,
            )
        )
    calls: list[JudgeCall] = []
    for stage in ("decompose", "verify", "verify"):
        fail = rng.random() < judge_fail
        unusable = not fail and rng.random() < judge_fail
        causes: list[ParseCause] = [rng.choice(_CAUSES)] if unusable else []
        calls.append(
            JudgeCall(
                stage=stage,
                judge="local",
                latency_s=round(rng.lognormvariate(-3.0, 0.6), 4),
                ok=not fail,
                error="TimeoutError: judge call timed out" if fail else None,
                parse_failure="fallback: NOT SURE" if unusable else None,
                parse_causes=causes,
                reply_unusable=unusable,
            )
        )
    spans = [f.spans[0] for f in factoids if f.flagged]
    return ScoreReport(
        score=score,
        threshold=threshold,
        flagged=score >= threshold,
        factoids=factoids,
        flagged_spans=spans,
        usage=Usage(judge_calls=len(calls)),
        calls=calls,
    )


def _answer(report: ScoreReport) -> str:
    return " ".join(f.text for f in report.factoids)


def write_history(
    audit: AuditTrail,
    policy: Policy,
    *,
    turns: int,
    queue: ReviewQueue | None = None,
    true_threshold: Mapping[str, float] | None = None,
    label_noise: float = 0.0,
    judge_fail: float = 0.01,
    start: datetime | None = None,
    days: float = 7.0,
    seed: int = 0,
) -> HistoryTruth:
    """Write ``turns`` turns of ``policy``'s topics to ``audit`` (and escalations to ``queue``,
    resolved there by simulated reviewers); return what was written.

    ``true_threshold`` maps a topic to the score from which its answers are really
    hallucinated (default: the policy's own threshold). When ``queue`` is given its
    ``clock`` is replaced by the generator's for the duration of the call.
    """
    rng = random.Random(seed)
    engine = PolicyEngine(policy)
    truth_at = {t.name: t.threshold for t in policy.topics}
    truth_at.update(true_threshold or {})
    names = [t.name for t in policy.topics]
    sensitivity = {t.name: t.sensitivity for t in policy.topics}
    begin = start or datetime(2026, 1, 5, tzinfo=timezone.utc)
    step = timedelta(days=days) / max(turns, 1)
    clock = _Clock()
    saved = queue.clock if queue is not None else None
    if queue is not None:
        queue.clock = clock
    out = HistoryTruth(start=_iso(begin))
    try:
        for i in range(turns):
            now = begin + step * i
            topic = rng.choice(names)
            score = round(rng.betavariate(1.3, 2.2), 4)
            labels = [TopicLabel(label=topic, confidence=0.9, sensitivity=sensitivity[topic])]
            rule = engine.rule_for(labels)
            unscorable = rng.random() < judge_fail / 2
            report = None if unscorable else _report(rng, score, rule.threshold, judge_fail)
            decision = engine.decide(
                report, labels, error="judge timed out" if unscorable else None
            )
            answer = _answer(report) if report else rng.choice(_CLAIMS)
            audit_id = f"turn-{seed}-{i:07d}"
            result = GuardResult(
                audit_id=audit_id,
                policy=policy.name,
                question=f"Question {i} about {topic}?",
                answer=answer,
                original_answer=answer,
                decision=decision,
                topics=labels,
                report=report,
            )
            record = AuditRecord.from_result(result, policy_hash=policy.content_hash)
            audit.append(record.model_copy(update={"time": _iso(now)}))
            out.turns += 1
            per = out.decisions.setdefault(decision.topic, {})
            per[decision.action] = per.get(decision.action, 0) + 1
            if report is not None:
                out.failed_calls += sum(1 for c in report.calls if not c.ok)
                out.unusable_calls += sum(1 for c in report.calls if c.reply_unusable)
            if queue is None or decision.queue is None:
                continue
            out.escalated += 1
            clock.now = now
            queue.add(
                EscalationCase(
                    case_id=audit_id,
                    queue=decision.queue,
                    created_at=_iso(now),
                    policy=policy.name,
                    question=result.question,
                    answer=answer,
                    topics=labels,
                    decision=decision,
                    report=report,
                )
            )
            if decision.score is None or rng.random() < 0.1:
                continue  # still open (or unscored: nothing a reviewer could label)
            clock.now = now + timedelta(minutes=rng.expovariate(1 / 45))
            reviewer = rng.choice(("dana", "lee", "sam"))
            queue.claim(audit_id, reviewer)
            clock.now += timedelta(minutes=rng.expovariate(1 / 6))
            bad = decision.score >= truth_at[decision.topic]
            if rng.random() < label_noise:
                bad = not bad
            if not bad:
                res = queue.resolve(audit_id, "approved")
                out.overturned += 1
            elif rng.random() < 0.5:
                res = queue.resolve(audit_id, "rejected", note="unsupported claim")
            else:
                res = queue.resolve(audit_id, "edited", final_answer=answer + " (corrected)")
            out.resolved += 1
            audit.append(
                AuditRecord.resolution(
                    res.case_id, res.reviewer, res.outcome, res.final_answer, res.note
                ).model_copy(update={"time": _iso(clock.now)})
            )
        out.end = _iso(begin + step * turns)
    finally:
        if queue is not None and saved is not None:
            queue.clock = saved
    return out
