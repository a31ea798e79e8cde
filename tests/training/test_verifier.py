"""The verifier's training recipe: labels, grouped folds, and a simulation equal to the scorer."""

from __future__ import annotations

import math

import pytest

from guardrail.evaluation.datasets import load_rows
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.features import DENSE_NAMES, Features, Polarity
from guardrail.judges.local.trained import VerifierModel
from guardrail.judges.local.verifiers import TrainedVerifier
from guardrail.scoring.metarag import MetaRAG
from guardrail.training.verifier import (
    C_GRID,
    FactoidRecord,
    RowRecord,
    Scored,
    Statement,
    _best_combination,
    collect,
    finite,
    fold_of,
    log_loss,
    metarag_outcome,
    overlap,
    score_records,
    train,
)


def test_overlap_counts_shared_characters_after_merging():
    """Overlapping spans on either side are merged before counting shared characters."""
    assert overlap([(0, 10), (5, 12)], [(8, 20)]) == 4
    assert overlap([(0, 3)], [(3, 6)]) == 0


def test_fold_of_is_stable_and_in_range():
    """A group always lands in the same fold, and folds are 0..k-1."""
    folds = {fold_of(f"doc{i}", 5) for i in range(200)}
    assert folds == set(range(5))
    assert fold_of("doc7", 5) == fold_of("doc7", 5)


def test_finite_rejects_nan():
    """Model dicts with NaN or infinity are caught before they are written as JSON."""
    assert finite({"a": [1.0, {"b": 2.0}]})
    assert not finite({"a": [1.0, float("nan")]})


def _row(labels: list[int]) -> RowRecord:
    stmt = Statement(Features((0.0,) * len(DENSE_NAMES), ()), Polarity(False, False, 0.0))
    row = RowRecord("r", "qa", "g", int(any(labels)), [])
    row.factoids = [FactoidRecord("f", [], y, stmt, []) for y in labels]
    return row


def test_log_loss_rewards_confident_right_probabilities():
    """Mean factoid log-loss: lower for right, confident p; ln 2 at p = 0.5; inf when empty."""
    row = _row([1, 0])
    good = log_loss([Scored(row, [0.9, 0.1], [[], []])])
    coin = log_loss([Scored(row, [0.5, 0.5], [[], []])])
    bad = log_loss([Scored(row, [0.1, 0.9], [[], []])])
    assert good == pytest.approx(-math.log(0.9))
    assert coin == pytest.approx(math.log(2))
    assert good < coin < bad
    assert log_loss([]) == math.inf


def test_best_combination_maximizes_overall_f1_under_the_flag_cap():
    """One candidate per kind; F1 and the flagged share are those of all answers together."""
    import numpy as np

    # counts per candidate: answer TP, FP, FN, flagged, span TP, FP, FN
    kind_a = np.array([[10, 10, 0, 20, 0, 0, 0], [8, 2, 2, 10, 0, 0, 0]], dtype=float)
    kind_b = np.array([[5, 15, 0, 20, 0, 0, 0], [4, 4, 1, 8, 0, 0, 0]], dtype=float)
    at, f1, _ = _best_combination([kind_a, kind_b], rows=40, max_flagged=None)
    assert at == (1, 1) and f1 == pytest.approx(24 / (24 + 6 + 3))
    # a cap of 45 % (18 of 40 answers): only (1, 1) fits; of 20 %: none does, so the
    # least-flagging combination is kept
    assert _best_combination([kind_a, kind_b], rows=40, max_flagged=0.45)[0] == (1, 1)
    assert _best_combination([kind_a, kind_b], rows=40, max_flagged=0.2)[0] == (1, 1)
    at, _, _ = _best_combination([kind_a[:1], kind_b], rows=40, max_flagged=None)
    assert at == (0, 1)


@pytest.mark.data
@pytest.mark.parametrize("per_kind", [False, True])
def test_train_on_shared_rows_and_simulation_matches_metarag(shared_data, per_kind):
    """A model trained on 55 RAGTruth rows loads; its simulated flags equal MetaRAG's own
    (with one cut-off, and with a cut-off per kind of context)."""
    rows = load_rows(shared_data / "ragtruth" / "dev.jsonl", shuffle_seed=3, limit=70)
    train_rows, held_rows = rows[:55], rows[55:]
    records = collect(train_rows)
    assert sum(f.label for r in records for f in r.factoids) > 0
    data = train(records, "logistic", folds=2, per_kind=per_kind)
    assert ("kinds" in data["thresholds"]) is per_kind
    assert finite(data) and data["meta"]["rows"] == 55
    assert data["meta"]["c"] in C_GRID  # chosen by grouped out-of-fold log-loss
    model = VerifierModel(data)
    assert 0.0 < model.decision.support <= 1.0
    scorer = MetaRAG(
        LocalJudge(verifier=TrainedVerifier(model)), localizer=None
    )  # simulation: factoid spans
    held = {r.id: r for r in held_rows}
    for scored in score_records(collect(held_rows), model):
        row = held[scored.row.id]
        report = scorer.score_sync(row.question, row.answer, row.contexts)
        flagged, spans = metarag_outcome(scored, model.decision)
        assert flagged == report.flagged, row.id
        assert spans == report.flagged_spans, row.id
