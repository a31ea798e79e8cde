"""Decision cuts for the encoder verifier, chosen through MetaRAG's own aggregation.

The encoder gives three probabilities per (statement, window) pair; the judge turns them into
YES / NO / NOT SURE with two cuts (:class:`~guardrail.judges.local.encoder.EncoderCutoffs`).
:func:`collect` runs MetaRAG with the encoder judge once per answer and keeps, for every factoid,
its aligned spans, the probabilities of its variants and of the factoid itself; :func:`tune`
then searches the cuts that maximize MetaRAG's answer F1 (ties: span F1) with the scorer's
default threshold 0.5, and RT4CHART's ``entailed`` cut for its any-claim-not-entailed rule.
Only the cuts are fitted here; the network is trained on HaluEval alone
(``scripts/train_encoder.py``), so RAGTruth rows serve as held-out data for it. The benchmark
(``benchmarks/encoder_verifier_ragtruth.py``) tunes the cuts on grouped folds it then does not
report on.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guardrail.evaluation.datasets import EvalRow, load_rows
from guardrail.evaluation.metrics import SpanCounts, answer_counts, span_counts
from guardrail.judges.local.encoder import EncoderCutoffs, EncoderModel
from guardrail.judges.local.judge import LocalJudge
from guardrail.judges.local.verify import Support
from guardrail.models import Label, Relation, Span, merge_spans
from guardrail.scoring.metarag import PENALTY, MetaRAG

_LABELS = {
    Support.SUPPORTED: Label.YES,
    Support.CONTRADICTED: Label.NO,
    Support.UNKNOWN: Label.NOT_SURE,
}
Probs = tuple[float, float, float]
#: A statement the encoder read (its probabilities) or one it could not (the rules' outcome).
Verdict = Probs | Support


@dataclass
class FactoidRecord:
    spans: list[Span]
    own: Verdict
    variants: list[tuple[Relation, Verdict]]


@dataclass
class RowRecord:
    id: str
    task: str
    group: str
    label: int
    gold: list[Span]
    factoids: list[FactoidRecord] = field(default_factory=list)


def _verdicts(judge: LocalJudge, statements: Sequence[str], context: str) -> list[Verdict]:
    inputs = judge.encoder_inputs(statements, context)
    probs = iter(judge.encoder.probabilities([p for p, _ in inputs if p is not None]))
    return [next(probs) if pair is not None else rules.outcome for pair, rules in inputs]


def collect(
    rows: Sequence[EvalRow], encoder: EncoderModel, *, progress: bool = False
) -> list[RowRecord]:
    """MetaRAG (offline decomposition and mutation, encoder verification) on every row."""
    from rich.progress import Progress

    judge = LocalJudge.with_encoder(encoder)
    scorer = MetaRAG(judge, localizer=None)
    out: list[RowRecord] = []
    with Progress(disable=not progress) as bar:
        task = bar.add_task("encoder over RAGTruth", total=len(rows))
        for row in rows:
            report = scorer.score_sync(row.question, row.answer, row.contexts)
            context = "\n\n".join(row.contexts)
            record = RowRecord(row.id, row.task, row.group, row.label, list(row.spans))
            for f in report.factoids:
                texts = [f.text, *(v.text for v in f.variants)]
                verdicts = _verdicts(judge, texts, context)
                record.factoids.append(
                    FactoidRecord(
                        list(f.spans),
                        verdicts[0],
                        [(v.relation, x) for v, x in zip(f.variants, verdicts[1:], strict=True)],
                    )
                )
            out.append(record)
            bar.advance(task)
    return out


def _outcome(v: Verdict, cuts: EncoderCutoffs, *, rt4chart: bool = False) -> Support:
    return v if isinstance(v, Support) else cuts.outcome(v, rt4chart=rt4chart)


def metarag_score(r: RowRecord, cuts: EncoderCutoffs) -> tuple[float, list[Span]]:
    """MetaRAG's answer score and the spans of factoids scoring >= 0.5 (whole factoids)."""
    best = 0.0
    spans: list[Span] = []
    for f in r.factoids:
        if not f.variants:
            continue
        pen = [PENALTY[(rel, _LABELS[_outcome(v, cuts)])] for rel, v in f.variants]
        score = sum(pen) / len(pen)
        best = max(best, score)
        if score >= 0.5:
            spans.extend(f.spans)
    return best, merge_spans(spans)


def rt4chart_flag(r: RowRecord, cuts: EncoderCutoffs) -> bool:
    """RT4CHART's default rule (any claim not ENTAILED), on MetaRAG's factoids."""
    return any(_outcome(f.own, cuts, rt4chart=True) is not Support.SUPPORTED for f in r.factoids)


@dataclass(frozen=True)
class Fit:
    f1: float
    span: SpanCounts


def evaluate(records: Sequence[RowRecord], cuts: EncoderCutoffs) -> Fit:
    preds = []
    spans = SpanCounts()
    for r in records:
        score, predicted = metarag_score(r, cuts)
        preds.append(score >= 0.5)
        spans = spans + span_counts(r.gold, predicted if score >= 0.5 else [])
    return Fit(answer_counts([r.label for r in records], preds).f1, spans)


def _grid(values: list[float], n: int) -> list[float]:
    values = sorted(values)
    if not values:
        return [0.5]
    return sorted(
        {
            round(values[min(len(values) - 1, int(q * len(values)))], 4)
            for q in [i / (n - 1) for i in range(n)]
        }
    )


def tune(records: Sequence[RowRecord]) -> tuple[EncoderCutoffs, dict[str, float]]:
    """Cuts maximizing MetaRAG answer F1 (ties: span F1), then RT4CHART's ``entailed`` cut."""
    read = [v for r in records for f in r.factoids for _, v in f.variants]
    probs = [v for v in read if not isinstance(v, Support)]
    best: tuple[float, float, EncoderCutoffs] | None = None
    for s, c in itertools.product(
        _grid([p[0] for p in probs], 25), [*_grid([p[1] for p in probs], 12), 1.01]
    ):
        cuts = EncoderCutoffs(support=s, refute=c, entailed=s)
        fit = evaluate(records, cuts)
        if best is None or (fit.f1, fit.span.f1) > best[:2]:
            best = (fit.f1, fit.span.f1, cuts)
    assert best is not None
    chosen = best[2]
    own = [f.own[0] for r in records for f in r.factoids if not isinstance(f.own, Support)]
    labels = [r.label for r in records]
    rt_best: tuple[float, float] | None = None
    for e in _grid(own, 40):
        cuts = EncoderCutoffs(chosen.support, chosen.refute, e)
        f1 = answer_counts(labels, [rt4chart_flag(r, cuts) for r in records]).f1
        if rt_best is None or f1 > rt_best[0]:
            rt_best = (f1, e)
    assert rt_best is not None
    cuts = EncoderCutoffs(chosen.support, chosen.refute, rt_best[1])
    return cuts, {"metarag_f1": best[0], "metarag_span_f1": best[1], "rt4chart_f1": rt_best[0]}


def write_cuts(directory: Path, cuts: EncoderCutoffs, tuned_on: dict[str, Any]) -> None:
    """Store ``cuts`` (and where they were tuned) in ``directory/encoder.json``."""
    path = Path(directory) / "encoder.json"
    spec = json.loads(path.read_text(encoding="utf-8"))
    spec["thresholds"] = {"support": cuts.support, "refute": cuts.refute, "entailed": cuts.entailed}
    spec.setdefault("meta", {})["tuned_on"] = tuned_on
    path.write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")


def tune_packaged(directory: Path, data: Path) -> None:
    """Tune the cuts of a freshly trained encoder on all of RAGTruth dev under ``data`` and
    write them into its ``encoder.json``."""
    rows = load_rows(data / "ragtruth" / "dev.jsonl")
    encoder = EncoderModel(directory, memo=10_000_000)
    cuts, fit = tune(collect(rows, encoder, progress=True))
    write_cuts(directory, cuts, {"data": "ragtruth/dev.jsonl", "rows": len(rows), "in_sample": fit})
