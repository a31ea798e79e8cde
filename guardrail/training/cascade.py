"""Calibrate the cascade's cut-off (:mod:`guardrail.scoring.cascade`) on labelled answers.

Recipe (``scripts/calibrate_cascade.py`` runs it on RAGTruth dev):

1. Every answer is decomposed by the offline judge and each factoid featurized, as the
   verifier's training does (:func:`guardrail.training.verifier.collect`).
2. Each factoid's unsupported-risk comes from a verifier fitted on the *other* source-document
   folds (:func:`~guardrail.training.verifier.out_of_fold`, the packaged model's recipe), so no
   risk is in-sample; a reversed statement (polarity) gets risk 1.0, an unweighable one none.
3. A factoid is an *error* when the screen would settle it and its answer span overlaps a gold
   hallucinated span by at least one character.
4. The cut-off is the loosest risk at which the settled factoids' error rate is at most
   ``fit_target``. Cross-validation over source-document folds (a cut-off chosen on the other
   folds, applied to the held one) gives the figures reported: the share of factoids settled
   and the error rate among them, overall and per task.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from guardrail.evaluation.datasets import fold_of
from guardrail.judges.local.features import checkable
from guardrail.judges.local.trained import Cutoffs
from guardrail.judges.local.verify import Support
from guardrail.training.verifier import RowRecord, Scored, overlap, rule_clash


@dataclass(frozen=True)
class ScreenedFactoid:
    """One factoid as the screen sees it, with its gold label."""

    group: str
    task: str
    risk: float | None
    hallucinated: bool


def screened_factoids(scored: Sequence[Scored], decision: Cutoffs) -> list[ScreenedFactoid]:
    """Risks (out-of-fold ``p``, polarity and rule clash applied as at run time) and labels."""
    out = []
    for s in scored:
        row: RowRecord = s.row
        for factoid, p in zip(row.factoids, s.own, strict=True):
            statement = factoid.own
            risk: float | None = None
            if statement.conflict is Support.CONTRADICTED:
                risk = 1.0  # a conflicting value: never settled, as at run time
            elif checkable(statement.features):
                flipped = statement.polarity.flipped(decision.trust)
                risk = decision.screen_risk(p, flipped, clash=rule_clash(statement))
            out.append(
                ScreenedFactoid(row.group, row.task, risk, overlap(factoid.spans, row.gold) > 0)
            )
    return out


def choose_cutoff(items: Sequence[ScreenedFactoid], fit_target: float) -> float:
    """The largest risk ``c`` whose settled set (risk <= c) errs at most ``fit_target``.

    0.0 (nothing with positive risk settled) when no such ``c`` exists.
    """
    risks = sorted((i.risk, i.hallucinated) for i in items if i.risk is not None and i.risk < 1.0)
    best, errors = 0.0, 0
    for n, (risk, hallucinated) in enumerate(risks):
        errors += hallucinated
        last_of_tie = n + 1 == len(risks) or risks[n + 1][0] != risk
        if last_of_tie and errors <= fit_target * (n + 1):
            best = risk
    return best


def _figures(items: Sequence[ScreenedFactoid], settled: Sequence[bool]) -> dict[str, float]:
    n = len(items)
    chosen = [i for i, s in zip(items, settled, strict=True) if s]
    errors = sum(i.hallucinated for i in chosen)
    return {
        "factoids": n,
        "settled": len(chosen),
        "settled_share": len(chosen) / n if n else 0.0,
        "error_rate": errors / len(chosen) if chosen else 0.0,
        "hallucinated_share": sum(i.hallucinated for i in items) / n if n else 0.0,
    }


def cross_validate(
    items: Sequence[ScreenedFactoid], *, fit_target: float, folds: int = 5, seed: int = 0
) -> dict[str, Any]:
    """Cut-offs chosen on the other folds, applied to each held fold; pooled figures."""
    fold = [fold_of(i.group, folds, f"cascade:{seed}") for i in items]
    settled = [False] * len(items)
    cutoffs = []
    for k in range(folds):
        train = [i for i, f in zip(items, fold, strict=True) if f != k]
        cut = choose_cutoff(train, fit_target)
        cutoffs.append(round(cut, 4))
        for n, (item, f) in enumerate(zip(items, fold, strict=True)):
            if f == k:
                settled[n] = item.risk is not None and item.risk <= cut
    by_task: dict[str, list[int]] = defaultdict(list)
    for n, item in enumerate(items):
        by_task[item.task].append(n)
    return {
        "folds": folds,
        "fold_cutoffs": cutoffs,
        "overall": _figures(items, settled),
        "tasks": {
            task: _figures([items[n] for n in idx], [settled[n] for n in idx])
            for task, idx in sorted(by_task.items())
        },
    }
