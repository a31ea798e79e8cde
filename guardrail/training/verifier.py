"""Train the offline judge's verifier on labelled RAG answers (RAGTruth-style span labels).

Recipe (``scripts/train_verifier.py`` runs it; ``benchmarks/trained_verifier_ragtruth.py``
cross-fits it):

1. **Statements.** Every answer goes through MetaRAG with the offline judge exactly as at
   scoring time: the rule decomposer's factoids, and the rule mutator's synonym and antonym
   variants. Each factoid is aligned to the answer (:func:`guardrail.scoring.align.align`).
2. **Labels.** A factoid whose aligned span overlaps a human-labelled hallucinated span by at
   least :data:`MIN_OVERLAP` characters is *unsupported* (1); every other factoid of every answer
   is *supported* (0).
3. **Features** (:mod:`~guardrail.judges.local.features`) of each factoid against its context,
   computed by :func:`guardrail.training.readings.statement_features` — the scoring-time code path.
4. **Model**: gradient-boosted trees over the dense features (or a logistic regression, which
   can also use hashed unsupported stems), fitted on factoids only.
5. **Thresholds**: out-of-fold probabilities (folds grouped by source document) are pushed
   through MetaRAG's own aggregation (k variants, penalty table, mean per factoid, max per
   answer, flag at 0.5; a variant's verdict read off its factoid's as the trained verifier
   does), and the ``support`` threshold and polarity ``trust`` that maximize answer-level F1
   among those flagging at most :data:`MAX_FLAGGED` of the answers are kept; RT4CHART's
   ``entailed`` threshold likewise for its any-claim-not-entailed rule. ``refute`` stays off
   (a high ``p`` means NOT SURE, never NO: NO is kept for statements that reverse the context)
   and ``rule_clash`` stays off (on RAGTruth the rules' number/name clash test raised more
   false alarms than it caught, about -0.02 F1 under this protocol); both remain available in
   the model file.

Nothing here runs at scoring time; it needs scikit-learn and numpy (both package
dependencies).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from guardrail.evaluation.datasets import EvalRow, fold_of
from guardrail.evaluation.metrics import SpanCounts, answer_counts, span_counts
from guardrail.judges.local.features import (
    DENSE_NAMES,
    HASH_BUCKETS,
    STACK_NAMES,
    Features,
    Polarity,
    checkable,
    context_kind,
)
from guardrail.judges.local.judge import LocalJudge
from guardrail.judges.local.trained import VERIFIER_FORMAT, Cutoffs, VerifierModel
from guardrail.judges.local.verifiers import REVERSED
from guardrail.judges.local.verify import Support
from guardrail.models import Label, Relation, Span, merge_spans
from guardrail.scoring.metarag import PENALTY, MetaRAG
from guardrail.scoring.settings import MetaRAGConfig
from guardrail.training.readings import anchored, reader, statement_features, variant_reverses

MIN_OVERLAP = 3
#: Candidate coverages above which a context unit's polarity is trusted.
TRUST_GRID = (0.0, 0.3, 0.45, 0.6, 0.75, 0.9)
ModelKind = Literal["trees", "logistic"]
_LABELS = {
    Support.SUPPORTED: Label.YES,
    Support.CONTRADICTED: Label.NO,
    Support.UNKNOWN: Label.NOT_SURE,
}
_RULE_CONTRADICTED = DENSE_NAMES.index("rule_contradicted")


@dataclass(frozen=True)
class Statement:
    """One verified text: its features and its polarity relative to its best context unit."""

    features: Features
    polarity: Polarity
    #: The conflict check's verdict when it decides the statement (it runs before the model).
    conflict: Support | None = None
    #: For a MetaRAG variant: whether it reverses its factoid (``None``: the two are not
    #: comparable, and the variant is read on its own; see
    #: :meth:`~guardrail.judges.local.verifiers.TrainedVerifier.from_factoid`).
    reverses: bool | None = None
    #: For a factoid: its best context sentence gives every value it states, so scoring
    #: supports it when the model leaves it undecided (see
    #: :mod:`~guardrail.judges.local.anchors`). Never set for a variant.
    anchored: bool = False


@dataclass
class FactoidRecord:
    """A factoid of an answer, its label, and the variants MetaRAG verifies for it."""

    text: str
    spans: list[Span]
    label: int
    own: Statement
    variants: list[tuple[Relation, Statement]]


@dataclass
class RowRecord:
    """One answer: gold label and spans, and its factoids."""

    id: str
    task: str
    group: str
    label: int
    gold: list[Span]
    factoids: list[FactoidRecord] = field(default_factory=list)


def overlap(a: Iterable[Span], b: Iterable[Span]) -> int:
    """Characters shared by two span lists."""
    return span_counts(a, b).tp


def collect(rows: Sequence[EvalRow], *, k: int = 2) -> list[RowRecord]:
    """Run MetaRAG's decomposition and mutation on every row; featurize every statement."""
    out: list[RowRecord] = []
    judge = LocalJudge(verifier="rules", cache_size=4)
    reading = reader()
    scorer = MetaRAG(judge, config=MetaRAGConfig(k=k), localizer=None)
    for row in rows:
        report = scorer.score_sync(row.question, row.answer, row.contexts)
        context = "\n\n".join(row.contexts)
        record = RowRecord(row.id, row.task, row.group, row.label, list(row.spans))
        for factoid in report.factoids:
            own = Statement(
                *statement_features(reading, factoid.text, context, conflicts=True),
                anchored=anchored(reading, factoid.text, context),
            )
            variants = [
                (
                    v.relation,
                    Statement(
                        *statement_features(reading, v.text, context, conflicts=True),
                        reverses=variant_reverses(reading, v.text, factoid.text, context),
                    ),
                )
                for v in factoid.variants
            ]
            label = int(overlap(factoid.spans, row.spans) >= MIN_OVERLAP)
            record.factoids.append(
                FactoidRecord(factoid.text, list(factoid.spans), label, own, variants)
            )
        out.append(record)
    return out


# --- fitting -----------------------------------------------------------------------------------


def _dense(statements: Sequence[Statement]) -> np.ndarray[Any, Any]:
    return np.array([s.features.dense for s in statements], dtype=float)


def _training_set(records: Sequence[RowRecord]) -> tuple[list[Statement], np.ndarray[Any, Any]]:
    stmts = [f.own for r in records for f in r.factoids]
    labels = np.array([f.label for r in records for f in r.factoids], dtype=int)
    return stmts, labels


def fit(
    records: Sequence[RowRecord],
    kind: ModelKind = "trees",
    *,
    seed: int = 0,
    c: float = 0.5,
) -> dict[str, Any]:
    """Fit a model on the factoids of ``records``; return its JSON-ready dict (no thresholds)."""
    stmts, y = _training_set(records)
    if len(set(y.tolist())) < 2:
        raise ValueError("training needs both supported and unsupported factoids")
    x = _dense(stmts)
    names = STACK_NAMES if x.shape[1] == len(STACK_NAMES) else DENSE_NAMES
    base: dict[str, Any] = {
        "format": VERIFIER_FORMAT,
        "kind": kind,
        "dense_names": list(names),
        "hash_buckets": HASH_BUCKETS,
    }
    if kind == "trees":
        from sklearn.ensemble import GradientBoostingClassifier

        gb = GradientBoostingClassifier(
            n_estimators=150,
            max_depth=3,
            learning_rate=0.05,
            min_samples_leaf=40,
            subsample=0.8,
            random_state=seed,
        ).fit(x, y)
        trees = []
        for est in gb.estimators_[:, 0]:
            t = est.tree_
            trees.append(
                {
                    "feature": [int(v) if v >= 0 else 0 for v in t.feature],
                    "threshold": [float(v) for v in t.threshold],
                    "left": [int(v) for v in t.children_left],
                    "right": [int(v) for v in t.children_right],
                    "value": [float(v) for v in t.value[:, 0, 0]],
                }
            )
        # The prior log-odds: the decision function minus the trees' contribution.
        raw = float(gb.decision_function(x[:1])[0])
        contrib = sum(float(e.predict(x[:1])[0]) for e in gb.estimators_[:, 0])
        base.update(
            {
                "intercept": raw - gb.learning_rate * contrib,
                "learning_rate": float(gb.learning_rate),
                "trees": trees,
            }
        )
        return base
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    rows_i = [i for i, s in enumerate(stmts) for _ in s.features.hashed]
    cols = [b for s in stmts for b in s.features.hashed]
    h = sparse.csr_matrix((np.ones(len(cols)), (rows_i, cols)), shape=(len(stmts), HASH_BUCKETS))
    design = sparse.hstack([sparse.csr_matrix(z), h]).tocsr()
    lr = LogisticRegression(C=c, max_iter=3000).fit(design, y)
    coef = lr.coef_[0]
    base.update(
        {
            "intercept": float(lr.intercept_[0]),
            "mean": [float(v) for v in mean],
            "scale": [float(v) for v in scale],
            "coef": [float(v) for v in coef[: len(names)]],
            "hashed_coef": [float(v) for v in coef[len(names) :]],
        }
    )
    return base


# --- simulation of the scorers' aggregation ----------------------------------------------------


@dataclass
class Scored:
    """Probabilities of one row's statements under one model."""

    row: RowRecord
    own: list[float]
    variants: list[list[tuple[Relation, float, Statement]]]


def score_records(records: Sequence[RowRecord], model: VerifierModel) -> list[Scored]:
    """``p`` for every factoid and variant of ``records``."""
    out = []
    for r in records:
        own = [model.probability(f.own.features) for f in r.factoids]
        variants = [
            [(rel, model.probability(s.features), s) for rel, s in f.variants] for f in r.factoids
        ]
        out.append(Scored(r, own, variants))
    return out


def metarag_outcome(
    s: Scored, decision: Cutoffs, threshold: float = 0.5
) -> tuple[bool, list[Span]]:
    """MetaRAG's answer flag and flagged spans, as the scorer computes them."""
    best = 0.0
    spans: list[Span] = []
    for f, own, variants in zip(s.row.factoids, s.own, s.variants, strict=True):
        if not variants:
            continue
        pen = [
            PENALTY[(rel, _LABELS[_outcome(decision, stmt, p, factoid=(f.own, own))])]
            for rel, p, stmt in variants
        ]
        score = sum(pen) / len(pen)
        best = max(best, score)
        if score >= threshold:
            spans.extend(f.spans)
    flagged = bool(s.row.factoids) and best >= threshold
    return flagged, merge_spans(spans) if flagged else []


def rt4chart_outcome(s: Scored, decision: Cutoffs) -> bool:
    """RT4CHART's default rule (any claim not ENTAILED), approximated on MetaRAG's factoids."""
    return any(
        _outcome(decision, f.own, p, rt4chart=True) is not Support.SUPPORTED
        for f, p in zip(s.row.factoids, s.own, strict=True)
    )


def _outcome(
    decision: Cutoffs,
    statement: Statement,
    p: float,
    *,
    rt4chart: bool = False,
    factoid: tuple[Statement, float] | None = None,
) -> Support:
    """What the trained judge answers for ``statement`` (mirrors ``TrainedVerifier.check``);
    ``factoid``: the statement and ``p`` of the factoid a variant was made from."""
    if statement.conflict is not None:
        return statement.conflict
    if factoid is not None and statement.reverses is not None:
        own, p_own = factoid
        if own.conflict is not None or checkable(own.features):
            found = _outcome(decision, own, p_own, rt4chart=rt4chart)
            return REVERSED[found] if statement.reverses else found
    if not checkable(statement.features):
        return Support.SUPPORTED if statement.anchored else Support.UNKNOWN
    found = decision.outcome(
        p,
        statement.polarity.flipped(decision.trust),
        clash=rule_clash(statement),
        support=decision.cut(context_kind(statement.features), rt4chart=rt4chart),
    )
    if found is Support.UNKNOWN and statement.anchored:
        return Support.SUPPORTED  # as the trained verifier's support from values
    return found


def row_kind(record: RowRecord) -> str | None:
    """The kind of context an answer was read against (``None``: it has no factoids)."""
    return context_kind(record.factoids[0].own.features) if record.factoids else None


def rule_clash(statement: Statement) -> bool:
    """The rule verifier's CONTRADICTED outcome, kept as feature ``rule_contradicted``."""
    return statement.features.dense[_RULE_CONTRADICTED] > 0


@dataclass(frozen=True)
class SimResult:
    f1: float
    precision: float
    recall: float
    span: SpanCounts
    #: Share of answers flagged.
    flagged: float = 0.0


def simulate(
    scored: Sequence[Scored],
    flag: Callable[[Scored], tuple[bool, list[Span]]],
) -> SimResult:
    labels = [s.row.label for s in scored]
    preds: list[bool] = []
    spans = SpanCounts()
    for s in scored:
        flagged, predicted = flag(s)
        preds.append(flagged)
        spans = spans + span_counts(s.row.gold, predicted)
    c = answer_counts(labels, preds)
    return SimResult(c.f1, c.precision, c.recall, spans, sum(preds) / len(preds) if preds else 0.0)


def _metarag_flagger(decision: Cutoffs) -> Callable[[Scored], tuple[bool, list[Span]]]:
    return lambda s: metarag_outcome(s, decision)


def _rt4chart_flagger(decision: Cutoffs) -> Callable[[Scored], tuple[bool, list[Span]]]:
    return lambda s: (rt4chart_outcome(s, decision), [])


def tune(
    scored: Sequence[Scored], max_flagged: float | None = None, *, per_kind: bool = False
) -> tuple[Cutoffs, dict[str, float]]:
    """Thresholds maximizing answer F1 (ties: span F1) of MetaRAG and RT4CHART on ``scored``;
    with ``max_flagged``, only among thresholds flagging at most that share of the answers
    (the least-flagging one when none does). With ``per_kind``, each kind of context
    (:func:`row_kind`) gets its own MetaRAG and RT4CHART cut-offs, chosen jointly (the F1 and
    the flagged share are those of all answers together)."""
    ps = sorted(p for s in scored for p in s.own)

    def quantiles(lo: float, hi: float, n: int) -> list[float]:
        return sorted({ps[min(len(ps) - 1, int(q * len(ps)))] for q in np.linspace(lo, hi, n)})

    qs = quantiles(0.3, 0.99, 40)
    best: tuple[float, float, Cutoffs] | None = None
    fallback: tuple[float, Cutoffs] | None = None
    for trust, support in itertools.product(TRUST_GRID, qs):
        d = Cutoffs(support=support, entailed=support, trust=trust)
        res = simulate(scored, _metarag_flagger(d))
        if fallback is None or res.flagged < fallback[0]:
            fallback = (res.flagged, d)
        if max_flagged is not None and res.flagged > max_flagged:
            continue
        key = (res.f1, res.span.f1)
        if best is None or key > best[:2]:
            best = (res.f1, res.span.f1, d)
    if best is None and fallback is not None:
        res = simulate(scored, _metarag_flagger(fallback[1]))
        best = (res.f1, res.span.f1, fallback[1])
    assert best is not None
    chosen = best[2]
    rt_best: tuple[float, float] | None = None
    for entailed in qs:
        d = dataclasses.replace(chosen, entailed=entailed)
        res = simulate(scored, _rt4chart_flagger(d))
        if max_flagged is not None and res.flagged > max_flagged and rt_best is not None:
            continue
        if rt_best is None or res.f1 > rt_best[0]:
            rt_best = (res.f1, entailed)
    assert rt_best is not None
    decision = dataclasses.replace(chosen, entailed=rt_best[1])
    figures = {"metarag_f1": best[0], "metarag_span_f1": best[1], "rt4chart_f1": rt_best[0]}
    if per_kind:
        decision, figures = _tune_kinds(scored, decision, max_flagged, figures)
    return decision, figures


#: Counts one simulated answer set contributes: answers TP, FP, FN, flagged, and span TP, FP, FN.
_COUNTS = 7


def _counts(
    scored: Sequence[Scored], flag: Callable[[Scored], tuple[bool, list[Span]]]
) -> np.ndarray[Any, Any]:
    out = np.zeros(_COUNTS)
    for s in scored:
        flagged, predicted = flag(s)
        gold = bool(s.row.label)
        sc = span_counts(s.row.gold, predicted)
        answer = (gold and flagged, flagged and not gold, gold and not flagged, flagged)
        out += (*answer, sc.tp, sc.fp, sc.fn)
    return out


def _best_combination(
    tables: Sequence[np.ndarray[Any, Any]], rows: int, max_flagged: float | None
) -> tuple[tuple[int, ...], float, float]:
    """The index of one candidate per kind (``tables[k][i]``: counts of candidate ``i``)
    maximizing overall answer F1 (ties: span F1) among combinations flagging at most
    ``max_flagged`` of ``rows`` answers (the least-flagging one when none does)."""
    total = np.zeros([len(t) for t in tables] + [_COUNTS])
    for k, t in enumerate(tables):
        shape = [1] * len(tables) + [_COUNTS]
        shape[k] = len(t)
        total = total + t.reshape(shape)
    tp, fp, fn, flagged, stp, sfp, sfn = (total[..., i] for i in range(_COUNTS))
    f1 = np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
    span_f1 = np.where(stp > 0, 2 * stp / np.maximum(2 * stp + sfp + sfn, 1), 0.0)
    allowed = flagged <= (max_flagged * rows if max_flagged is not None else np.inf)
    if not allowed.any():
        at = np.unravel_index(int(np.argmin(flagged)), flagged.shape)
    else:
        key = np.where(allowed, f1 + 1e-6 * span_f1, -1.0)
        at = np.unravel_index(int(np.argmax(key)), key.shape)
    return tuple(int(i) for i in at), float(f1[at]), float(span_f1[at])


def _tune_kinds(
    scored: Sequence[Scored],
    base: Cutoffs,
    max_flagged: float | None,
    figures: dict[str, float],
) -> tuple[Cutoffs, dict[str, float]]:
    """Per-kind MetaRAG cut-offs (with each polarity trust of :data:`TRUST_GRID`) and then
    per-kind RT4CHART cut-offs, chosen jointly over the kinds; ``base`` (the single cut-offs)
    stays the default of any other kind."""
    groups: dict[str, list[Scored]] = {}
    for s in scored:
        kind = row_kind(s.row)
        if kind is not None:
            groups.setdefault(kind, []).append(s)
    kinds = sorted(groups)
    if not kinds:
        return base, figures

    def candidates(kind: str) -> list[float]:
        ps = sorted(p for s in groups[kind] for p in s.own)
        return sorted({ps[min(len(ps) - 1, int(q * len(ps)))] for q in np.linspace(0.3, 0.99, 40)})

    cuts = {k: candidates(k) for k in kinds}
    replace = dataclasses.replace
    rows = len(scored)
    best: tuple[float, float, Cutoffs] | None = None
    for trust in TRUST_GRID:
        tables = [
            np.array(
                [
                    _counts(groups[k], _metarag_flagger(replace(base, support=c, trust=trust)))
                    for c in cuts[k]
                ]
            )
            for k in kinds
        ]
        at, f1, span_f1 = _best_combination(tables, rows, max_flagged)
        chosen = tuple((k, cuts[k][i], cuts[k][i]) for k, i in zip(kinds, at, strict=True))
        if best is None or (f1, span_f1) > best[:2]:
            best = (f1, span_f1, dataclasses.replace(base, trust=trust, kinds=chosen))
    assert best is not None
    decision = best[2]
    rt_tables = [
        np.array(
            [
                _counts(
                    groups[k],
                    _rt4chart_flagger(dataclasses.replace(decision, entailed=c, kinds=())),
                )
                for c in cuts[k]
            ]
        )
        for k in kinds
    ]
    at, rt_f1, _ = _best_combination(rt_tables, rows, max_flagged)
    kinds_cut = tuple(
        (k, support, cuts[k][i]) for (k, support, _), i in zip(decision.kinds, at, strict=True)
    )
    decision = dataclasses.replace(decision, kinds=kinds_cut)
    return decision, {
        **figures,
        "metarag_f1": best[0],
        "metarag_span_f1": best[1],
        "rt4chart_f1": rt_f1,
    }


#: The default cap on the share of answers the thresholds may flag out of fold (``None``: no
#: cap, the thresholds that maximize answer F1). Answer F1 is flat over a wide range of flagged
#: shares, and a guard that flags two answers in three is hard to live with, so the recipe keeps
#: out-of-fold flags at or under 62 % (a margin under two thirds for data that differs).
MAX_FLAGGED: float | None = 0.62
#: Separate cut-offs per kind of context (JSON record, labelled passages, other prose).
PER_KIND = False
#: Inverse regularization strengths tried for the logistic model (chosen by grouped CV).
C_GRID = (0.05, 0.15, 0.5, 1.5)


def out_of_fold(
    records: Sequence[RowRecord], kind: ModelKind, *, folds: int, seed: int, c: float
) -> list[Scored]:
    """Every record scored by a model fitted on the other folds (grouped by source document)."""
    fold = [fold_of(r.group, folds, seed + 1) for r in records]
    oof: list[Scored] = []
    for k in range(folds):
        train_part = [r for r, f in zip(records, fold, strict=True) if f != k]
        held = [r for r, f in zip(records, fold, strict=True) if f == k]
        if not held or len({f.label for r in train_part for f in r.factoids}) < 2:
            continue
        model = VerifierModel(fit(train_part, kind, seed=seed, c=c))
        oof.extend(score_records(held, model))
    return oof


def log_loss(scored: Sequence[Scored]) -> float:
    """Mean factoid log-loss of ``scored`` (how well ``p`` predicts the factoid labels)."""
    total, n = 0.0, 0
    for s in scored:
        for f, p in zip(s.row.factoids, s.own, strict=True):
            q = min(max(p, 1e-6), 1 - 1e-6)
            total -= math.log(q if f.label else 1 - q)
            n += 1
    return total / n if n else math.inf


def train(
    records: Sequence[RowRecord],
    kind: ModelKind = "trees",
    *,
    folds: int = 5,
    seed: int = 0,
    c: float | None = None,
    max_flagged: float | None = None,
    per_kind: bool = PER_KIND,
) -> dict[str, Any]:
    """Fit on ``records``; thresholds from grouped out-of-fold predictions on the same records.

    ``c``: the logistic model's inverse regularization; ``None`` picks it from :data:`C_GRID` by
    grouped out-of-fold factoid log-loss (the same folds that choose the thresholds).
    ``max_flagged``: the largest share of answers the thresholds may flag (see :func:`tune`).
    ``per_kind``: separate cut-offs per kind of context (see :func:`tune`).
    """
    grid = [c] if c is not None else list(C_GRID if kind == "logistic" else [0.5])
    tried: list[tuple[float, float, list[Scored]]] = []
    for c_ in grid:
        oof = out_of_fold(records, kind, folds=folds, seed=seed, c=c_)
        tried.append((log_loss(oof), c_, oof))
    tried = [t for t in tried if t[2]]
    if not tried:
        raise ValueError("training needs both supported and unsupported factoids in every fold")
    loss, chosen_c, oof = min(tried, key=lambda t: t[0])
    decision, tuned = tune(oof, max_flagged, per_kind=per_kind)
    data = fit(records, kind, seed=seed, c=chosen_c)
    data["thresholds"] = decision.as_dict()
    n_fact = sum(len(r.factoids) for r in records)
    n_pos = sum(f.label for r in records for f in r.factoids)
    data["meta"] = {
        "rows": len(records),
        "factoids": n_fact,
        "unsupported_factoids": n_pos,
        "threshold_folds": folds,
        "seed": seed,
        "c": chosen_c,
        "max_flagged": max_flagged,
        "per_kind": per_kind,
        "out_of_fold": {**{k: round(v, 4) for k, v in tuned.items()}, "log_loss": round(loss, 4)},
        "groups": len({r.group for r in records}),
    }
    return data


def finite(data: dict[str, Any]) -> bool:
    """True when every number in a model dict is finite (JSON has no NaN)."""

    def ok(v: Any) -> bool:
        if isinstance(v, float):
            return math.isfinite(v)
        if isinstance(v, dict):
            return all(ok(x) for x in v.values())
        if isinstance(v, list):
            return all(ok(x) for x in v)
        return True

    return ok(data)
