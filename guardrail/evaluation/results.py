"""Turn row outcomes into the figures ``guardrail eval`` prints and writes.

Rules the numbers follow:

* Answer level: the hallucinated answer is positive; an answer is predicted hallucinated when
  its response score is ``>= threshold``. Failed rows are left out of every metric and
  reported separately (``failed``, ``failed_rows``), so a figure never silently includes
  a guess for a row that was not scored.
* Span level: only rows whose span labels are known take part — rows labelled 0 (no spans by
  definition) and rows labelled 1 that carry at least one span. Rows labelled 1 with no spans
  (e.g. HaluEval, which has no span labels) are counted in ``span.excluded``; when no row has
  span labels the span block is ``null``.
* A figure computed at a threshold chosen on the same rows is marked
  ``"tuned_on_same_rows": true``.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean
from typing import Any

from guardrail.evaluation.datasets import EvalRow
from guardrail.evaluation.metrics import (
    answer_counts,
    best_threshold,
    span_counts,
    span_metrics,
    threshold_sweep,
)
from guardrail.evaluation.runner import RowOutcome


def _scored(
    rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]
) -> list[tuple[EvalRow, RowOutcome]]:
    return [(r, outcomes[r.id]) for r in rows if r.id in outcomes and outcomes[r.id].ok]


def _span_block(pairs: list[tuple[EvalRow, RowOutcome]], threshold: float) -> dict[str, Any] | None:
    known = [(r, o) for r, o in pairs if r.label == 0 or r.spans]
    if not any(r.spans for r, _ in known):
        return None
    counts = span_metrics((list(r.spans), o.spans_at(threshold)) for r, o in known)
    return {**counts.as_dict(), "rows": len(known), "excluded": len(pairs) - len(known)}


def block(
    rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome], threshold: float
) -> dict[str, Any]:
    """Answer- and span-level figures for ``rows`` at ``threshold``."""
    pairs = _scored(rows, outcomes)
    labels = [r.label for r, _ in pairs]
    counts = answer_counts(labels, [o.flagged_at(threshold) for _, o in pairs])
    return {
        "n": len(pairs),
        "answer": counts.as_dict(),
        "span": _span_block(pairs, threshold),
    }


def cost_block(outcomes: Sequence[RowOutcome]) -> dict[str, float | None]:
    """Per-answer cost means; ``cached_prompt_tokens_per_answer`` is null when no server
    reported its prompt-cache hits (llama.cpp's does not; OpenAI's and Anthropic's do)."""
    ok = [o for o in outcomes if o.ok]
    if not ok:
        return {}
    reported = [o.cached_prompt_tokens for o in ok if o.cached_prompt_tokens is not None]
    return {
        "judge_calls_per_answer": mean(o.judge_calls for o in ok),
        "cached_calls_per_answer": mean(o.cached_calls for o in ok),
        "round_trips_per_answer": mean(o.round_trips for o in ok),
        "prompt_tokens_per_answer": mean(o.prompt_tokens for o in ok),
        "completion_tokens_per_answer": mean(o.completion_tokens for o in ok),
        "cached_prompt_tokens_per_answer": mean(reported) if reported else None,
        "seconds_per_answer": mean(o.seconds for o in ok),
        "parse_failures": sum(o.parse_failures for o in ok),
        "failed_judge_calls": sum(o.failed_calls for o in ok),
    }


def cascade_block(rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]) -> dict[str, Any]:
    """What the cascade's screen settled: its share of factoids and, on rows with gold spans,
    the share of settled factoids overlapping a gold hallucinated span (its error rate)."""
    pairs = _scored(rows, outcomes)
    factoids = [f for _, o in pairs for f in o.factoids]
    settled = [f for f in factoids if f.screened]
    out: dict[str, Any] = {
        "factoids": len(factoids),
        "settled": len(settled),
        "settled_share": len(settled) / len(factoids) if factoids else 0.0,
    }
    known = [(r, o) for r, o in pairs if r.label == 0 or r.spans]
    if any(r.spans for r, _ in known):
        judged = [(f, r) for r, o in known for f in o.factoids if f.screened]
        wrong = sum(1 for f, r in judged if span_counts(r.spans, f.spans).tp > 0)
        out["settled_checked"] = len(judged)
        out["settled_error_rate"] = wrong / len(judged) if judged else 0.0
    return out


def reference_block(outcomes: Sequence[RowOutcome]) -> dict[str, Any] | None:
    refs = [o.reference for o in outcomes if o.ok and o.reference]
    if not refs:
        return None
    keys = ("hallucination", "faithfulness", "noise_sensitivity", "self_knowledge")
    return {"rows": len(refs), **{k: mean(float(r.get(k, 0.0)) for r in refs) for k in keys}}


def sweep_block(rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]) -> list[dict[str, Any]]:
    pairs = _scored(rows, outcomes)
    labels = [r.label for r, _ in pairs]
    scores = [o.score or 0.0 for _, o in pairs]
    return [p.as_dict() for p in threshold_sweep(labels, scores)]


def tuned_block(
    tune_rows: Sequence[EvalRow],
    report_rows: Sequence[EvalRow],
    outcomes: dict[str, RowOutcome],
    metric: str,
) -> dict[str, Any] | None:
    """Pick the threshold on ``tune_rows`` by ``metric`` and report it on ``report_rows``."""
    pairs = _scored(tune_rows, outcomes)
    if not pairs:
        return None
    point = best_threshold([r.label for r, _ in pairs], [o.score or 0.0 for _, o in pairs], metric)
    same = {r.id for r in tune_rows} == {r.id for r in report_rows}
    return {
        "metric": metric,
        "threshold": point.threshold,
        "tuned_rows": len(pairs),
        "tuned_on_same_rows": same,
        **block(report_rows, outcomes, point.threshold),
    }


def summarize(
    rows: Sequence[EvalRow],
    outcomes: dict[str, RowOutcome],
    *,
    threshold: float,
    threshold_source: str,
    tuned_on_same_rows: bool = False,
) -> dict[str, Any]:
    """Everything the eval JSON holds apart from run metadata."""
    failed = [outcomes[r.id] for r in rows if r.id in outcomes and not outcomes[r.id].ok]
    missing = [r.id for r in rows if r.id not in outcomes]
    tasks = sorted({r.task for r in rows})
    main = block(rows, outcomes, threshold)
    return {
        "n": main["n"],
        "n_rows": len(rows),
        "threshold": threshold,
        "threshold_source": threshold_source,
        "tuned_on_same_rows": tuned_on_same_rows,
        "answer": main["answer"],
        "span": main["span"],
        "tasks": {t: block([r for r in rows if r.task == t], outcomes, threshold) for t in tasks},
        "failed": len(failed),
        "failed_rows": [{"id": o.id, "error": o.error} for o in failed],
        "not_scored": missing,
        "cost": cost_block([outcomes[r.id] for r in rows if r.id in outcomes]),
        "reference": reference_block([outcomes[r.id] for r in rows if r.id in outcomes]),
        "cascade": cascade_block(rows, outcomes),
        "sweep": sweep_block(rows, outcomes),
        "best_on_same_rows": tuned_block(rows, rows, outcomes, "f1"),
    }
