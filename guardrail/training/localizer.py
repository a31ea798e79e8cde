"""Train the word-level localizer on span-labelled rows (RAGTruth) with grouped CV.

Recipe (``scripts/train_localizer.py`` runs it on ``../shared/data/ragtruth/dev.jsonl``):

1. every word of every answer gets :mod:`~guardrail.localize.features` and a label: 1 when it
   overlaps a human-marked hallucinated span;
2. a logistic regression (class weights untouched, ``C`` fixed) is fitted on all words;
3. the keep threshold is the one maximizing character-overlap span F1 of grouped out-of-fold
   predictions (folds by source document), over *all* words of all answers — it never looks at
   which factoids a scorer flagged, so it stays judge-independent.

Rows without span labels carry no word labels and are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guardrail.evaluation.datasets import EvalRow, fold_of
from guardrail.evaluation.metrics import span_metrics
from guardrail.localize.features import FEATURE_NAMES, ContextWords, word_features
from guardrail.localize.model import LOCALIZER_FORMAT, TokenLocalizer, word_runs
from guardrail.models import Span
from guardrail.text.tokens import Token

THRESHOLDS = tuple(round(0.05 + 0.025 * i, 3) for i in range(19))  # 0.05 .. 0.5


@dataclass(frozen=True)
class WordRows:
    """One answer's words, their features and labels."""

    group: str
    gold: list[Span]
    words: list[Token]
    features: np.ndarray
    labels: np.ndarray


def word_rows(rows: Sequence[EvalRow]) -> list[WordRows]:
    """Featurize the answers whose word labels are known (clean, or hallucinated with spans)."""
    out: list[WordRows] = []
    for row in rows:
        if row.label and not row.spans:
            continue  # a hallucinated answer without spans has unknown word labels
        words, features = word_features(row.answer, row.question, ContextWords.build(row.contexts))
        labels = np.array(
            [any(s < w.end and w.start < e for s, e in row.spans) for w in words], dtype=int
        )
        out.append(WordRows(row.group, list(row.spans), words, features, labels))
    return out


def fit(examples: Sequence[WordRows], *, c: float = 1.0) -> dict[str, Any]:
    """A logistic model over all words of ``examples``, as the JSON-ready dict (no threshold)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([e.features for e in examples])
    y = np.concatenate([e.labels for e in examples])
    if len(set(y.tolist())) < 2:
        raise ValueError("training needs both hallucinated and supported words")
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(x, y)
    return {
        "format": LOCALIZER_FORMAT,
        "feature_names": list(FEATURE_NAMES),
        "coef": [float(v) for v in model.coef_[0]],
        "intercept": float(model.intercept_[0]),
        "threshold": 0.5,
        "meta": {"c": c, "answers": len(examples), "words": len(y), "positive": int(y.sum())},
    }


def span_f1(examples: Sequence[WordRows], probs: Sequence[np.ndarray], threshold: float) -> float:
    """Span F1 when every word at or above ``threshold`` is flagged (no factoid gate)."""
    pairs = (
        (e.gold, word_runs(e.words, [i for i, v in enumerate(p) if v >= threshold]))
        for e, p in zip(examples, probs, strict=True)
    )
    return span_metrics(pairs).f1


def out_of_fold(
    examples: Sequence[WordRows], *, folds: int, seed: int, c: float
) -> tuple[list[WordRows], list[np.ndarray]]:
    """Each example's word probabilities from a model fitted on the other folds."""
    fold = [fold_of(e.group, folds, f"localizer:{seed}") for e in examples]
    held_out: list[WordRows] = []
    probs: list[np.ndarray] = []
    for k in range(folds):
        part = [e for e, f in zip(examples, fold, strict=True) if f != k]
        held = [e for e, f in zip(examples, fold, strict=True) if f == k]
        if not held or not part:
            continue
        model = TokenLocalizer(fit(part, c=c))
        held_out.extend(held)
        probs.extend(model.probabilities(e.features) for e in held)
    return held_out, probs


def train(
    rows: Sequence[EvalRow], *, folds: int = 5, seed: int = 0, c: float = 1.0
) -> dict[str, Any]:
    """Fit on ``rows``; the threshold from grouped out-of-fold span F1 on the same rows."""
    examples = word_rows(rows)
    if not examples:
        raise ValueError("no span-labelled rows to train the localizer on")
    held, probs = out_of_fold(examples, folds=folds, seed=seed, c=c)
    sweep = {t: span_f1(held, probs, t) for t in THRESHOLDS}
    threshold = max(sweep, key=lambda t: (sweep[t], -t))
    data = fit(examples, c=c)
    data["threshold"] = threshold
    data["meta"].update(
        {
            "folds": folds,
            "seed": seed,
            "out_of_fold_span_f1": round(sweep[threshold], 4),
            "threshold_sweep": {str(t): round(v, 4) for t, v in sweep.items()},
        }
    )
    return data
