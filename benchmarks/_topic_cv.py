"""Topic-classifier evaluation shared by the topic benchmarks: folds, cross-validation, tallies.

One protocol for every topic benchmark (``benchmarks.topic_classifier``,
``benchmarks.topic_embeddings``):

* **Folds** — k-fold over the policy's own examples: example ``i`` of each topic is held out in
  fold ``i % k``; descriptions always train. Keywords are switched off unless asked for (the
  model alone; keywords were written with the examples in view, so CV with them is optimistic).
* **Protection** — the applied rule is :meth:`PolicyEngine.rule_for(labels)` (the strictest
  detected topic). Under-protection: its threshold is looser (higher) than the gold topic's
  rule; over-protection: stricter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sklearn.metrics import f1_score

from guardrail.models import TopicLabel
from guardrail.policy import Policy, PolicyEngine
from guardrail.policy.schema import TopicRule
from guardrail.topics import TopicClassifier

FOLDS = 5

#: Builds a classifier from training topics (the policy's own, or one fold's).
Build = Callable[[Sequence[TopicRule]], TopicClassifier]


@dataclass
class Tally:
    """Predictions against gold labels, with the policy's protection view."""

    names: list[str]
    gold: list[str] = field(default_factory=list)
    pred: list[str] = field(default_factory=list)
    under: int = 0
    over: int = 0
    lenient: int = 0
    hard_total: int = 0
    hard_ok: int = 0

    def add(
        self,
        engine: PolicyEngine,
        labels: Sequence[TopicLabel],
        gold: str,
        also: Sequence[str] = (),
        hard: bool = False,
    ) -> None:
        top = labels[0].label
        self.gold.append(gold)
        self.pred.append(top)
        self.lenient += top in {gold, *also}
        applied = engine.rule_for(labels)
        wanted = engine.policy.topic(gold)
        self.under += applied.threshold > wanted.threshold
        self.over += applied.threshold < wanted.threshold
        if hard:
            self.hard_total += 1
            self.hard_ok += top == gold

    def summary(self) -> dict[str, Any]:
        n = len(self.gold)
        return {
            "n": n,
            "accuracy": sum(g == p for g, p in zip(self.gold, self.pred, strict=True)) / n,
            "macro_f1": float(
                f1_score(self.gold, self.pred, labels=self.names, average="macro", zero_division=0)
            ),
            "lenient_accuracy": self.lenient / n,
            "under_protection_rate": self.under / n,
            "under_protected": self.under,
            "over_protection_rate": self.over / n,
            "over_protected": self.over,
            "hard_case_accuracy": self.hard_ok / self.hard_total if self.hard_total else None,
            "n_hard_cases": self.hard_total,
        }


def fold_topics(
    policy: Policy, k: int, *, keywords: bool = False, folds: int = FOLDS
) -> tuple[list[TopicRule], list[tuple[str, str]]]:
    """Training topics without fold ``k``'s examples, and the held-out ``(topic, text)``."""
    topics: list[TopicRule] = []
    held: list[tuple[str, str]] = []
    for t in policy.topics:
        keep = [e for i, e in enumerate(t.examples) if i % folds != k]
        held += [(t.name, e) for i, e in enumerate(t.examples) if i % folds == k]
        update: dict[str, Any] = {"examples": keep}
        if not keywords:
            update["keywords"] = []
        topics.append(t.model_copy(update=update))
    return topics, held


def cross_validate(
    policy: Policy,
    build: Build,
    *,
    floors: Sequence[float] | None = None,
    keywords: bool = False,
    folds: int = FOLDS,
) -> dict[float, dict[str, Any]]:
    """CV figures at every confidence floor in ``floors`` (one fit per fold).

    ``floors`` defaults to the policy's own floor. The held-out texts of a fold are passed to
    ``probabilities`` once before classifying, so a classifier that memoises them (a floor sweep)
    re-runs only the detection logic.
    """
    engine = PolicyEngine(policy)
    names = [t.name for t in policy.topics]
    sweep = list(floors) if floors is not None else [policy.classifier.confidence_floor]
    tallies = {f: Tally(names) for f in sweep}
    for k in range(folds):
        topics, held = fold_topics(policy, k, keywords=keywords, folds=folds)
        clf = build(topics)
        clf.probabilities([q for _, q in held])
        for floor in sweep:
            clf.confidence_floor = floor
            for gold, query in held:
                tallies[floor].add(engine, clf.classify(query), gold)
    return {f: t.summary() for f, t in tallies.items()}


def evaluate(
    clf: TopicClassifier, engine: PolicyEngine, rows: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Figures of ``clf`` on eval rows ``{"query", "topic", "also"?, "hard"?}``."""
    clf.probabilities([r["query"] for r in rows])
    tally = Tally([t.name for t in engine.policy.topics])
    for r in rows:
        tally.add(
            engine, clf.classify(r["query"]), r["topic"], r.get("also", []), r.get("hard", False)
        )
    return tally.summary()
