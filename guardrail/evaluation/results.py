"""Turn row outcomes into the figures ``guardrail eval`` prints and writes.

Rules the numbers follow:

* Answer level: the hallucinated answer is positive; an answer is predicted hallucinated when
  its response score is ``>= threshold``.
* **Unscored rows are never dropped.** A row whose scoring failed (judge down, deadline passed)
  or whose judge gave no signal (status ``judge_unusable``) gets the outcome a guard would give
  it: its policy's on-error rule. ``on_error="flag"`` (the default; abstain and escalate both
  keep the answer from the user) counts it as flagged, ``"pass"`` as not flagged. ``answer``
  holds that figure over every row; ``answer_scored_only`` the figure over the scored rows
  alone, for comparison, clearly labelled.
* Cost: every row counts, failed ones included — their judge calls, tokens and seconds were
  spent — so ``seconds_per_answer`` is over all rows.
* Span level: scored rows whose span labels are known — rows labelled 0 (no spans by
  definition) and rows labelled 1 that carry at least one span. Rows labelled 1 with no spans
  (e.g. HaluEval, which has no span labels) are counted in ``span.excluded``; when no row has
  span labels the span block is ``null``.
* A figure computed at a threshold chosen on the same rows is marked
  ``"tuned_on_same_rows": true``. Thresholds are tuned on scored rows only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from statistics import mean
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from guardrail.evaluation.datasets import EvalRow
from guardrail.evaluation.metrics import (
    answer_counts,
    best_threshold,
    span_counts,
    span_metrics,
    threshold_sweep,
)
from guardrail.evaluation.runner import RowOutcome

#: How an unscored row counts: as the policy's fail-closed outcome (flagged) or as a pass.
OnError = Literal["flag", "pass"]


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FailedRow(_Block):
    id: str
    error: str | None


class CostBlock(_Block):
    """Per-answer means over every row (failed rows included), and run totals."""

    rows: int
    judge_calls: int = Field(description="judge calls of the run, failed rows' included")
    judge_calls_per_answer: float
    cached_calls_per_answer: float
    round_trips_per_answer: float
    prompt_tokens_per_answer: float
    completion_tokens_per_answer: float
    cached_prompt_tokens_per_answer: float | None = Field(
        description="null when no server reported its prompt-cache hits (llama.cpp's does not)"
    )
    seconds_per_answer: float = Field(description="mean wall time over all rows")
    seconds_per_scored_answer: float | None = Field(
        description="mean wall time over the scored rows only"
    )
    unusable_replies: int = Field(
        description="judge calls whose reply could not be used at all (a fallback stood in "
        "for all of it): the replies that carried no signal"
    )
    parse_failures: int = Field(
        description="judge calls whose reply needed any fallback rule: the unusable ones and "
        "those whose slip was recovered (a label found late, a placeholder dropped)"
    )
    parse_causes: dict[str, int] = Field(
        description="judge calls by parse-failure cause (a call with several causes counts in each)"
    )
    unusable_causes: dict[str, int] = Field(
        description="the unusable replies by cause (a call with several causes counts in each)"
    )
    failed_judge_calls: int
    judge_calls_of_failed_rows: int
    calls_without_usage: int = Field(
        default=0,
        description="judge calls whose server reported no token usage (streamed replies "
        "from llama-cpp-python): their prompt tokens are unknown, so the prompt-token figures "
        "are a lower bound",
    )

    def parse_summary(self) -> str:
        """One line: the calls whose reply could not be used (by cause), then those whose
        format slip was recovered."""
        recovered = self.parse_failures - self.unusable_replies
        line = (
            f"judge replies that could not be used: {self.unusable_replies} of "
            f"{self.judge_calls} calls{_counts(self.unusable_causes)}"
        )
        if recovered:
            slips = {
                cause: n - self.unusable_causes.get(cause, 0)
                for cause, n in self.parse_causes.items()
                if n > self.unusable_causes.get(cause, 0)
            }
            line += f"; {recovered} more read after a format slip{_counts(slips)}"
        return line


def _counts(counts: dict[str, int]) -> str:
    return f" ({', '.join(f'{cause} {n}' for cause, n in counts.items())})" if counts else ""


class ScoredBlock(_Block):
    """Answer- and span-level figures for a set of rows at one threshold."""

    n: int
    unscored: int = Field(default=0, description="rows counted by the on-error rule")
    answer: dict[str, float | int]
    answer_scored_only: dict[str, float | int]
    span: dict[str, float | int] | None


class TunedBlock(ScoredBlock):
    metric: str
    threshold: float
    tuned_rows: int
    tuned_on_same_rows: bool
    split: dict[str, Any] | None = None


class EvalSummary(_Block):
    """Everything the eval JSON holds apart from run metadata."""

    n: int = Field(description="rows scored")
    n_rows: int
    threshold: float
    threshold_source: str
    tuned_on_same_rows: bool
    on_error: OnError
    answer: dict[str, float | int] = Field(
        description="every row; unscored rows counted by the on-error rule"
    )
    answer_scored_only: dict[str, float | int]
    span: dict[str, float | int] | None
    tasks: dict[str, ScoredBlock]
    failed: int
    unusable: int = Field(description="rows scored with status judge_unusable")
    failed_rows: list[FailedRow]
    not_scored: list[str]
    cost: CostBlock | None
    reference: dict[str, float | int] | None
    cascade: dict[str, Any]
    sweep: list[dict[str, float | int]]
    best_on_same_rows: TunedBlock | None
    holdout: TunedBlock | None = None


def _present(
    rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]
) -> list[tuple[EvalRow, RowOutcome]]:
    return [(r, outcomes[r.id]) for r in rows if r.id in outcomes]


def _scored(
    rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]
) -> list[tuple[EvalRow, RowOutcome]]:
    return [(r, o) for r, o in _present(rows, outcomes) if not o.unscored]


def _span_block(
    pairs: list[tuple[EvalRow, RowOutcome]], threshold: float
) -> dict[str, float | int] | None:
    known = [(r, o) for r, o in pairs if r.label == 0 or r.spans]
    if not any(r.spans for r, _ in known):
        return None
    counts = span_metrics((list(r.spans), o.spans_at(threshold)) for r, o in known)
    return {**counts.as_dict(), "rows": len(known), "excluded": len(pairs) - len(known)}


def _predicted(outcome: RowOutcome, threshold: float, on_error: OnError) -> bool:
    if outcome.unscored:
        return on_error == "flag"
    return outcome.flagged_at(threshold)


def block(
    rows: Sequence[EvalRow],
    outcomes: dict[str, RowOutcome],
    threshold: float,
    on_error: OnError = "flag",
) -> ScoredBlock:
    """Answer- and span-level figures for ``rows`` at ``threshold``."""
    present = _present(rows, outcomes)
    scored = [(r, o) for r, o in present if not o.unscored]
    every = answer_counts(
        [r.label for r, _ in present], [_predicted(o, threshold, on_error) for _, o in present]
    )
    only = answer_counts([r.label for r, _ in scored], [o.flagged_at(threshold) for _, o in scored])
    return ScoredBlock(
        n=len(scored),
        unscored=len(present) - len(scored),
        answer=every.as_dict(),
        answer_scored_only=only.as_dict(),
        span=_span_block(scored, threshold),
    )


def cost_block(outcomes: Sequence[RowOutcome]) -> CostBlock | None:
    """Per-answer cost means over every row, failed rows included."""
    if not outcomes:
        return None
    reported = [o.cached_prompt_tokens for o in outcomes if o.cached_prompt_tokens is not None]
    scored = [o.seconds for o in outcomes if not o.unscored]
    return CostBlock(
        rows=len(outcomes),
        judge_calls=sum(o.judge_calls for o in outcomes),
        judge_calls_per_answer=mean(o.judge_calls for o in outcomes),
        cached_calls_per_answer=mean(o.cached_calls for o in outcomes),
        round_trips_per_answer=mean(o.round_trips for o in outcomes),
        prompt_tokens_per_answer=mean(o.prompt_tokens for o in outcomes),
        completion_tokens_per_answer=mean(o.completion_tokens for o in outcomes),
        cached_prompt_tokens_per_answer=mean(reported) if reported else None,
        seconds_per_answer=mean(o.seconds for o in outcomes),
        seconds_per_scored_answer=mean(scored) if scored else None,
        unusable_replies=sum(o.unusable_replies for o in outcomes),
        parse_failures=sum(o.parse_failures for o in outcomes),
        parse_causes=_sum_counts(o.parse_causes for o in outcomes),
        unusable_causes=_sum_counts(o.unusable_causes for o in outcomes),
        failed_judge_calls=sum(o.failed_calls for o in outcomes),
        judge_calls_of_failed_rows=sum(o.judge_calls for o in outcomes if not o.ok),
        calls_without_usage=sum(o.calls_without_usage for o in outcomes),
    )


def _sum_counts(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for one in counts:
        total.update(one)
    return dict(total.most_common())


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


def reference_block(outcomes: Sequence[RowOutcome]) -> dict[str, float | int] | None:
    refs = [o.reference for o in outcomes if o.ok and o.reference]
    if not refs:
        return None
    keys = ("hallucination", "faithfulness", "noise_sensitivity", "self_knowledge")
    return {"rows": len(refs), **{k: mean(float(r.get(k, 0.0)) for r in refs) for k in keys}}


def sweep_block(
    rows: Sequence[EvalRow], outcomes: dict[str, RowOutcome]
) -> list[dict[str, float | int]]:
    """Scored rows' answer-level figures at each threshold of the default grid."""
    pairs = _scored(rows, outcomes)
    labels = [r.label for r, _ in pairs]
    scores = [o.score or 0.0 for _, o in pairs]
    return [p.as_dict() for p in threshold_sweep(labels, scores)]


def tuned_block(
    tune_rows: Sequence[EvalRow],
    report_rows: Sequence[EvalRow],
    outcomes: dict[str, RowOutcome],
    metric: str,
    on_error: OnError = "flag",
) -> TunedBlock | None:
    """Pick the threshold on ``tune_rows``' scored rows by ``metric``; report on
    ``report_rows``."""
    pairs = _scored(tune_rows, outcomes)
    if not pairs:
        return None
    point = best_threshold([r.label for r, _ in pairs], [o.score or 0.0 for _, o in pairs], metric)
    same = {r.id for r in tune_rows} == {r.id for r in report_rows}
    figures = block(report_rows, outcomes, point.threshold, on_error)
    return TunedBlock(
        metric=metric,
        threshold=point.threshold,
        tuned_rows=len(pairs),
        tuned_on_same_rows=same,
        **figures.model_dump(),
    )


def summarize(
    rows: Sequence[EvalRow],
    outcomes: dict[str, RowOutcome],
    *,
    threshold: float,
    threshold_source: str,
    tuned_on_same_rows: bool = False,
    on_error: OnError = "flag",
) -> EvalSummary:
    """The figures of one run (see the module docstring for the rules)."""
    present = [outcomes[r.id] for r in rows if r.id in outcomes]
    failed = [o for o in present if not o.ok]
    missing = [r.id for r in rows if r.id not in outcomes]
    tasks = sorted({r.task for r in rows})
    main = block(rows, outcomes, threshold, on_error)
    return EvalSummary(
        n=main.n,
        n_rows=len(rows),
        threshold=threshold,
        threshold_source=threshold_source,
        tuned_on_same_rows=tuned_on_same_rows,
        on_error=on_error,
        answer=main.answer,
        answer_scored_only=main.answer_scored_only,
        span=main.span,
        tasks={
            t: block([r for r in rows if r.task == t], outcomes, threshold, on_error) for t in tasks
        },
        failed=len(failed),
        unusable=sum(1 for o in present if o.ok and o.unscored),
        failed_rows=[FailedRow(id=o.id, error=o.error) for o in failed],
        not_scored=missing,
        cost=cost_block(present),
        reference=reference_block(present),
        cascade=cascade_block(rows, outcomes),
        sweep=sweep_block(rows, outcomes),
        best_on_same_rows=tuned_block(rows, rows, outcomes, "f1", on_error),
    )
