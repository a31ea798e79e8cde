"""Reviewers' verdicts as labels, and per-topic thresholds proposed from them.

Every resolved review case is a human label on one scored answer: ``approved`` means the
answer was fine (the guard held it back for nothing: a false flag), ``edited`` and
``rejected`` mean the guard was right (the answer needed correcting). :func:`review_labels`
reads them from a review queue, taking each answer's score from the audit trail's turn
record when a trail is given (the hash-chained record is the evidence; the case's copy is the
fallback) and skipping cases that were never scored (nothing to place on a threshold).

:func:`propose_thresholds` picks, per topic, the threshold with the fewest false flags plus
``miss_cost`` x missed hallucinations on that topic's labels, and reports the effect by
k-fold cross-validation: each fold's threshold is chosen on the other folds and counted on
the held-out one, so the "held-out" figures were never tuned on the labels they count.

What reviews cannot tell. Cases reach reviewers only when the guard escalated them, so
nearly every label sits at or above the threshold in force. Reviews therefore show when a
threshold is too *low* (reviewers keep approving answers just above it) but not when it is
too *high*: hallucinated answers under it are passed and never reviewed. The proposal says
so, and never goes below the lowest reviewed score. A topic with fewer than ``min_labels``
labels, or fewer than ``min_each`` confirmed ones (without them there is no boundary to
find), is refused with the count it needs; a topic whose reviewers never overturned the guard
keeps its threshold.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from guardrail.queues.review_queue import ReviewQueue
from guardrail.storage import Target

__all__ = [
    "ReviewLabel",
    "TopicProposal",
    "propose_thresholds",
    "review_labels",
]


@dataclass(frozen=True)
class ReviewLabel:
    """One resolved case as a label: the score the guard gave and what the reviewer said."""

    case_id: str
    topic: str
    queue: str
    score: float
    threshold: float
    outcome: str
    hallucinated: bool


@dataclass
class LabelSource:
    """The labels read, and the cases left out with the reason."""

    labels: list[ReviewLabel] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _turn_scores(audit: Target) -> dict[str, float | None]:
    """``audit_id -> decision score`` of every turn record in the trail."""
    import json

    from guardrail.audit.trail import trail_source

    scores: dict[str, float | None] = {}
    with trail_source(audit).lines() as lines:
        for raw in lines:
            try:
                rec = json.loads(raw)
                if rec.get("kind") == "turn" and rec.get("decision") is not None:
                    scores[str(rec["audit_id"])] = rec["decision"].get("score")
            except (ValueError, AttributeError, KeyError, TypeError):
                continue  # `guardrail audit verify` is the tool that names bad lines
    return scores


def review_labels(queue: ReviewQueue, *, audit: Target | None = None) -> LabelSource:
    """The labels of every resolved, scored case in ``queue``."""
    scores = _turn_scores(audit) if audit is not None else None
    out = LabelSource()
    for stored in queue.list(state="resolved"):
        decision = stored.case.decision
        score = decision.score
        if scores is not None:
            if stored.case_id not in scores:
                out.skip("turn record not in the audit trail")
                continue
            logged = scores[stored.case_id]
            if logged != score:
                out.skip("score differs between case and audit record")
                continue
        if score is None:
            out.skip("not scored (escalated on an error)")
            continue
        outcome = stored.outcome or ""
        out.labels.append(
            ReviewLabel(
                case_id=stored.case_id,
                topic=decision.topic,
                queue=stored.queue,
                score=float(score),
                threshold=decision.threshold,
                outcome=outcome,
                hallucinated=outcome in ("edited", "rejected"),
            )
        )
    return out


@dataclass
class TopicProposal:
    """The proposal for one topic (``threshold`` is ``None`` when refused)."""

    topic: str
    labels: int
    confirmed: int
    overturned: int
    current: float
    threshold: float | None = None
    refused: str | None = None
    held_out: dict[str, Any] = field(default_factory=dict)
    note: str = ""


def _errors(labels: Sequence[ReviewLabel], t: float) -> tuple[int, int]:
    """(false flags, missed) on ``labels`` when flagging at score >= ``t``."""
    false_flags = sum(1 for x in labels if x.score >= t and not x.hallucinated)
    missed = sum(1 for x in labels if x.score < t and x.hallucinated)
    return false_flags, missed


def _best(labels: Sequence[ReviewLabel], current: float, miss_cost: float) -> float:
    """The cheapest threshold on ``labels``: candidates are the current threshold and the
    midpoints between consecutive distinct scores; ties go to the lowest (fewest misses)."""
    scores = sorted({x.score for x in labels})
    candidates = {current, *((a + b) / 2 for a, b in itertools.pairwise(scores))}

    def cost(t: float) -> tuple[float, float]:
        ff, missed = _errors(labels, t)
        return ff + miss_cost * missed, t

    return min(candidates, key=cost)


def _folds(labels: Sequence[ReviewLabel], k: int, seed: int) -> list[list[ReviewLabel]]:
    """``k`` folds, each holding its share of confirmed and overturned labels."""
    folds: list[list[ReviewLabel]] = [[] for _ in range(k)]
    rng = random.Random(seed)
    for kind in (True, False):
        group = sorted((x for x in labels if x.hallucinated is kind), key=lambda x: x.case_id)
        rng.shuffle(group)
        for i, x in enumerate(group):
            folds[i % k].append(x)
    return folds


def _propose(
    topic: str,
    labels: list[ReviewLabel],
    *,
    current: float,
    min_labels: int,
    min_each: int,
    folds: int,
    miss_cost: float,
    seed: int,
) -> TopicProposal:
    confirmed = sum(1 for x in labels if x.hallucinated)
    p = TopicProposal(topic, len(labels), confirmed, len(labels) - confirmed, current)
    if len(labels) < min_labels or confirmed < min_each:
        p.refused = (
            f"{len(labels)} labels ({confirmed} confirmed); needs at least {min_labels} labels "
            f"of which {min_each} confirmed (edited or rejected)"
        )
        return p
    p.threshold = round(_best(labels, current, miss_cost), 3)
    ff_cv = missed_cv = ff_now = missed_now = 0
    chosen: list[float] = []
    parts = _folds(labels, folds, seed)
    for i, held in enumerate(parts):
        train = [x for j, fold in enumerate(parts) if j != i for x in fold]
        t = _best(train, current, miss_cost)
        chosen.append(round(t, 3))
        ff, missed = _errors(held, t)
        ff_cv, missed_cv = ff_cv + ff, missed_cv + missed
        ff, missed = _errors(held, current)
        ff_now, missed_now = ff_now + ff, missed_now + missed
    n = len(labels)
    p.held_out = {
        "folds": folds,
        "fold_thresholds": chosen,
        "at_current": {"false_flags": ff_now, "missed": missed_now},
        "at_proposed": {"false_flags": ff_cv, "missed": missed_cv},
        "error_rate_current": round((ff_now + missed_now) / n, 4),
        "error_rate_proposed": round((ff_cv + missed_cv) / n, 4),
    }
    lowest = min(x.score for x in labels)
    p.note = (
        f"labels span scores {lowest:.2f}-{max(x.score for x in labels):.2f}: reviews can show "
        "a threshold is too low, not too high (answers under it are never reviewed)"
    )
    return p


def propose_thresholds(
    labels: Iterable[ReviewLabel],
    current: dict[str, float],
    *,
    min_labels: int = 30,
    min_each: int = 5,
    folds: int = 5,
    miss_cost: float = 1.0,
    seed: int = 0,
) -> list[TopicProposal]:
    """One proposal per topic of ``current`` (topic -> its threshold in the policy)."""
    by_topic: dict[str, list[ReviewLabel]] = {name: [] for name in current}
    for x in labels:
        if x.topic in by_topic:
            by_topic[x.topic].append(x)
    return [
        _propose(
            name,
            group,
            current=current[name],
            min_labels=min_labels,
            min_each=min_each,
            folds=folds,
            miss_cost=miss_cost,
            seed=seed,
        )
        for name, group in by_topic.items()
    ]
