"""Answer-level and span-level detection metrics, and threshold sweeps.

The hallucinated answer is the *positive* class (label 1), as in RAGTruth and RT4CHART.
Ratios with an empty denominator are 0.0 (scikit-learn's ``zero_division=0``), never NaN.

Span metrics follow the RAGTruth overlap protocol used by RT4CHART (Sec. 4.2): for each sample
let G and P be the sets of gold and predicted hallucinated character offsets in the answer;
TP = sum |G ∩ P|, FP = sum |P \\ G|, FN = sum |G \\ P|, then micro precision/recall/F1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from guardrail.exceptions import ConfigError
from guardrail.models import Span, merge_spans

METRICS = ("f1", "precision", "recall", "accuracy")


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def _f1(p: float, r: float) -> float:
    return _ratio(2 * p * r, p + r)


class _PRF:
    """Precision, recall and F1 from ``tp``, ``fp`` and ``fn`` (shared by both count types)."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)


@dataclass(frozen=True)
class BinaryCounts(_PRF):
    """A confusion matrix for the hallucinated (positive) class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float:
        return _ratio(self.tp + self.tn, self.n)

    def metric(self, name: str) -> float:
        if name not in METRICS:
            raise ConfigError(f"unknown metric {name!r}; expected one of {', '.join(METRICS)}")
        value: float = getattr(self, name)
        return value

    def as_dict(self) -> dict[str, float | int]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "accuracy": self.accuracy,
            **asdict(self),
            "n": self.n,
            "positives": self.tp + self.fn,
        }


def answer_counts(labels: Sequence[int], predicted: Sequence[bool]) -> BinaryCounts:
    """Count answer-level outcomes; ``labels`` are 0/1 gold, ``predicted`` True = flagged."""
    if len(labels) != len(predicted):
        raise ValueError("labels and predictions differ in length")
    tp = fp = fn = tn = 0
    for gold, pred in zip(labels, predicted, strict=True):
        if gold and pred:
            tp += 1
        elif pred:
            fp += 1
        elif gold:
            fn += 1
        else:
            tn += 1
    return BinaryCounts(tp, fp, fn, tn)


@dataclass(frozen=True)
class SpanCounts(_PRF):
    """Character-level overlap counts, summed over samples (micro average)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: SpanCounts) -> SpanCounts:
        return SpanCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def as_dict(self) -> dict[str, float | int]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            **asdict(self),
        }


def _length(spans: list[Span]) -> int:
    return sum(end - start for start, end in spans)


def _intersection(a: list[Span], b: list[Span]) -> int:
    """Characters covered by both merged span lists (two-pointer sweep)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_counts(gold: Iterable[Span], predicted: Iterable[Span]) -> SpanCounts:
    """Overlap counts for one sample; overlapping spans on either side are merged first."""
    g = merge_spans([(s, e) for s, e in gold if e > s])
    p = merge_spans([(s, e) for s, e in predicted if e > s])
    inter = _intersection(g, p)
    return SpanCounts(tp=inter, fp=_length(p) - inter, fn=_length(g) - inter)


def span_metrics(pairs: Iterable[tuple[Iterable[Span], Iterable[Span]]]) -> SpanCounts:
    """Micro-summed counts over ``(gold, predicted)`` pairs, one pair per sample."""
    total = SpanCounts()
    for gold, pred in pairs:
        total = total + span_counts(gold, pred)
    return total


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    counts: BinaryCounts

    def as_dict(self) -> dict[str, float | int]:
        c = self.counts
        return {
            "threshold": round(self.threshold, 6),
            "precision": c.precision,
            "recall": c.recall,
            "f1": c.f1,
            "accuracy": c.accuracy,
            "flagged": c.tp + c.fp,
        }


def default_grid(step: float = 0.05) -> list[float]:
    """Thresholds 0.0, step, ..., 1.0 (rounded so 0.15 prints as 0.15)."""
    n = round(1.0 / step)
    return [round(i * step, 6) for i in range(n + 1)]


def threshold_sweep(
    labels: Sequence[int], scores: Sequence[float], thresholds: Iterable[float] | None = None
) -> list[SweepPoint]:
    """Answer-level counts at each threshold, flagging ``score >= threshold`` (the report rule)."""
    if len(labels) != len(scores):
        raise ValueError("labels and scores differ in length")
    grid = sorted(set(default_grid() if thresholds is None else thresholds))
    return [SweepPoint(t, answer_counts(labels, [s >= t for s in scores])) for t in grid]


def best_threshold(
    labels: Sequence[int], scores: Sequence[float], metric: str = "f1"
) -> SweepPoint:
    """The threshold that maximizes ``metric`` on these rows.

    Candidates are the distinct scores (every distinct outcome is reachable at one of them)
    plus 0.0. Ties break on F1, then on the higher threshold (fewer flags for the same result).
    The result is tuned on the rows given: report it on other rows, or label it as tuned.
    """
    if metric not in METRICS:
        raise ConfigError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    if not scores:
        raise ConfigError("cannot tune a threshold on zero scored rows")
    candidates = sorted({0.0, *(min(1.0, max(0.0, float(s))) for s in scores)})
    points = threshold_sweep(labels, scores, candidates)
    return max(points, key=lambda p: (p.counts.metric(metric), p.counts.f1, p.threshold))
