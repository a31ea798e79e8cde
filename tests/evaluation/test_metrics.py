"""Answer-level and span-level metrics against hand-computed figures, plus properties."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guardrail.evaluation.metrics import (
    BinaryCounts,
    SpanCounts,
    answer_counts,
    best_threshold,
    default_grid,
    span_counts,
    span_metrics,
    threshold_sweep,
)
from guardrail.exceptions import ConfigError

spans_st = st.lists(
    st.tuples(st.integers(0, 60), st.integers(1, 20)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=5,
)


def test_answer_counts_hand_computed():
    """Hallucinated is positive: 2 TP, 1 FP, 1 FN, 2 TN -> P 2/3, R 2/3, acc 4/6."""
    labels = [1, 1, 1, 0, 0, 0]
    preds = [True, True, False, True, False, False]
    c = answer_counts(labels, preds)
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 2)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)
    assert c.accuracy == pytest.approx(4 / 6)


def test_empty_denominators_give_zero_not_nan():
    """Nothing flagged and nothing positive: every ratio is 0.0 (accuracy 1.0)."""
    c = answer_counts([0, 0], [False, False])
    assert (c.precision, c.recall, c.f1, c.accuracy) == (0.0, 0.0, 0.0, 1.0)
    assert SpanCounts().f1 == 0.0


def test_span_counts_hand_computed():
    """Gold [0,10) + [20,30), predicted [5,25): TP 10, FP 10, FN 10."""
    c = span_counts([(0, 10), (20, 30)], [(5, 25)])
    assert (c.tp, c.fp, c.fn) == (10, 10, 10)
    assert c.precision == 0.5 and c.recall == 0.5


def test_span_counts_merge_overlapping_predictions_first():
    """Overlapping predicted spans are a set of characters, not counted twice."""
    assert span_counts([(0, 10)], [(0, 6), (4, 10)]) == SpanCounts(tp=10, fp=0, fn=0)


def test_span_metrics_are_micro_summed_over_samples():
    """Sample 1 perfect (5 chars), sample 2 all wrong (5 FP, 15 FN): P 0.5, R 0.25."""
    c = span_metrics([([(0, 5)], [(0, 5)]), ([(0, 15)], [(20, 25)])])
    assert (c.tp, c.fp, c.fn) == (5, 5, 15)
    assert c.precision == 0.5 and c.recall == 0.25
    assert c.f1 == pytest.approx(2 * 0.5 * 0.25 / 0.75)


@given(spans_st)
def test_identical_spans_score_one(spans):
    """P == G (non-empty) gives precision = recall = F1 = 1."""
    c = span_counts(spans, spans)
    if spans:
        assert (c.precision, c.recall, c.f1) == (1.0, 1.0, 1.0)
    else:
        assert c == SpanCounts()


@given(spans_st, spans_st)
def test_disjoint_spans_score_zero(gold, pred):
    """Predictions shifted past every gold character have no overlap: TP 0, F1 0."""
    shift = max((e for _, e in gold), default=0) + 1
    moved = [(s + shift, e + shift) for s, e in pred]
    c = span_counts(gold, moved)
    assert c.tp == 0 and c.f1 == 0.0


@given(spans_st, spans_st)
def test_span_counts_agree_with_character_sets(gold, pred):
    """TP/FP/FN equal |G∩P|, |P\\G|, |G\\P| over explicit character sets."""
    g = {i for s, e in gold for i in range(s, e)}
    p = {i for s, e in pred for i in range(s, e)}
    assert span_counts(gold, pred) == SpanCounts(len(g & p), len(p - g), len(g - p))


@given(st.lists(st.tuples(st.integers(0, 1), st.booleans()), max_size=40))
def test_binary_counts_invariants(pairs):
    """Counts add up to n; every ratio lies in [0, 1]; F1 lies between min and max of P and R."""
    c = answer_counts([g for g, _ in pairs], [p for _, p in pairs])
    assert c.n == len(pairs)
    for v in (c.precision, c.recall, c.f1, c.accuracy):
        assert 0.0 <= v <= 1.0
    if c.precision and c.recall:
        assert min(c.precision, c.recall) - 1e-12 <= c.f1 <= max(c.precision, c.recall) + 1e-12


def test_threshold_sweep_flags_score_at_or_above_threshold():
    """At t=0.5 a score of exactly 0.5 is flagged (the report rule is >=)."""
    sweep = {p.threshold: p.counts for p in threshold_sweep([1, 0, 1], [0.5, 0.2, 1.0])}
    assert sweep[0.5] == BinaryCounts(tp=2, fp=0, fn=0, tn=1)
    assert sweep[0.55] == BinaryCounts(tp=1, fp=0, fn=1, tn=1)
    assert sweep[0.0] == BinaryCounts(tp=2, fp=1, fn=0, tn=0)
    assert default_grid()[:3] == [0.0, 0.05, 0.1] and default_grid()[-1] == 1.0


@given(st.lists(st.tuples(st.integers(0, 1), st.floats(0, 1)), min_size=1, max_size=30))
def test_recall_never_rises_with_threshold(pairs):
    """Raising the threshold flags fewer answers, so recall is non-increasing."""
    points = threshold_sweep([g for g, _ in pairs], [s for _, s in pairs])
    recalls = [p.counts.recall for p in points]
    assert all(a >= b for a, b in itertools.pairwise(recalls))


def test_best_threshold_hand_computed():
    """Scores separate the classes at 0.6: that threshold gives F1 1.0."""
    point = best_threshold([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.9], "f1")
    assert point.threshold == 0.6 and point.counts.f1 == 1.0


def test_best_threshold_for_precision_breaks_ties_on_f1():
    """Precision 1.0 is reached at 0.6 and at 0.9; 0.6 keeps more recall, so it wins."""
    point = best_threshold([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.9], "precision")
    assert point.threshold == 0.6


@given(st.lists(st.tuples(st.integers(0, 1), st.floats(0, 1)), min_size=1, max_size=30))
def test_best_threshold_is_at_least_as_good_as_any_grid_point(pairs):
    """The tuned F1 is >= the F1 at every grid threshold."""
    labels, scores = [g for g, _ in pairs], [s for _, s in pairs]
    best = best_threshold(labels, scores, "f1")
    assert all(best.counts.f1 >= p.counts.f1 - 1e-12 for p in threshold_sweep(labels, scores))


def test_unknown_metric_and_empty_scores_are_config_errors():
    """Bad calibration input names the problem instead of returning a number."""
    with pytest.raises(ConfigError, match="unknown metric"):
        best_threshold([1], [0.5], "auc")
    with pytest.raises(ConfigError, match="zero scored rows"):
        best_threshold([], [], "f1")
