"""``guardrail eval``: score a labelled dataset and report detection figures.

Prints a table (answer-level P/R/F1/accuracy overall and per task, span-level P/R/F1) and, with
``--json-out``, writes every figure plus a threshold sweep; a PNG of the sweep is written next
to the JSON when matplotlib is installed. ``--resume-file`` makes the run resumable.

Rows the judge could not score (a failure, a deadline, or no parsable verdict) are counted, not
dropped: as the policy's on-error outcome in the figures (``--on-error``, default flagged),
with the scored-only figures beside them, and with their calls, tokens and time in the cost.
Exit code: 0 when every row was scored, 1 when some rows failed (they are listed), 2 on bad
input.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from guardrail._fs import check_outputs, write_output_text
from guardrail.cli.commands import COMMANDS
from guardrail.cli.dataset_scoring import load_and_score
from guardrail.cli.options import (
    add_dataset_flags,
    add_log_flag,
    add_scorer_flags,
    configure_logs,
    flag_threshold,
)
from guardrail.evaluation.datasets import EvalRow, split_by_group
from guardrail.evaluation.results import (
    EvalSummary,
    OnError,
    ScoredBlock,
    TunedBlock,
    summarize,
    tuned_block,
)
from guardrail.evaluation.runner import RowOutcome, RunResult
from guardrail.render import print_table


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def print_summary(console: Console, summary: EvalSummary, title: str) -> None:
    table = Table(title=title)
    table.add_column("rows")  # task names: a label, may wrap; the figures never do
    for col in ("n", "unscored", "P", "R", "F1", "Acc", "span P", "span R", "span F1"):
        table.add_column(col, justify="right", no_wrap=True)
    outcome = "flagged" if summary.on_error == "flag" else "passed"
    main = ScoredBlock(
        n=summary.n,
        unscored=summary.failed + summary.unusable,
        answer=summary.answer,
        answer_scored_only=summary.answer_scored_only,
        span=summary.span,
    )
    blocks = [("all", main), *sorted(summary.tasks.items())]
    for name, blk in blocks:
        a, s = blk.answer, blk.span
        span_cells = [_fmt(s[k]) for k in ("precision", "recall", "f1")] if s else ["-"] * 3
        table.add_row(
            name,
            str(blk.n),
            str(blk.unscored),
            *(_fmt(a[k]) for k in ("precision", "recall", "f1", "accuracy")),
            *span_cells,
        )
    print_table(table, console)
    same = " (tuned on these same rows)" if summary.tuned_on_same_rows else ""
    console.print(
        f"threshold {summary.threshold:g} ({summary.threshold_source}){same}; "
        f"scored {summary.n}/{summary.n_rows}, failed {summary.failed}, "
        f"judge unusable {summary.unusable}"
    )
    if summary.failed or summary.unusable:
        only = summary.answer_scored_only
        console.print(
            f"answer figures count the {summary.failed + summary.unusable} unscored row(s) as "
            f"{outcome} (--on-error {summary.on_error}); over the scored rows only: "
            f"P {only['precision']:.3f} R {only['recall']:.3f} F1 {only['f1']:.3f}"
        )
    cost = summary.cost
    if cost is not None:
        console.print(
            f"per answer (all {cost.rows} rows): {cost.judge_calls_per_answer:.1f} judge calls, "
            f"{cost.prompt_tokens_per_answer + cost.completion_tokens_per_answer:.0f} "
            f"tokens, {cost.seconds_per_answer:.2f} s"
        )
        console.print(cost.parse_summary())
        if cost.calls_without_usage:
            console.print(
                f"[yellow]prompt tokens unknown for {cost.calls_without_usage} judge calls: the "
                "server sent no token usage with its streamed replies (--judge-stream off "
                "counts them)[/yellow]"
            )
    cascade = summary.cascade
    if cascade.get("settled"):
        error = cascade.get("settled_error_rate")
        console.print(
            f"cascade: the offline screen settled {cascade['settled']} of "
            f"{cascade['factoids']} factoids ({cascade['settled_share']:.1%})"
            + (
                f"; {error:.1%} of them overlap a gold hallucinated span"
                if error is not None
                else ""
            )
        )
    best = summary.best_on_same_rows
    if best:
        console.print(
            f"best F1 over thresholds: {best.answer['f1']:.3f} at {best.threshold:g} "
            "[bold](tuned on these same rows: optimistic)[/bold]"
        )
    holdout = summary.holdout
    if holdout:
        console.print(
            f"holdout: threshold {holdout.threshold:g} tuned for {holdout.metric} on "
            f"{holdout.tuned_rows} rows; on the other {holdout.n} rows "
            f"P {holdout.answer['precision']:.3f} R {holdout.answer['recall']:.3f} "
            f"F1 {holdout.answer['f1']:.3f}"
        )
    if summary.reference:
        ref = summary.reference
        console.print(
            f"reference metric ({ref['rows']} rows with a target): hallucination "
            f"{ref['hallucination']:.3f}, faithfulness {ref['faithfulness']:.3f}, "
            f"noise sensitivity {ref['noise_sensitivity']:.3f}"
        )


def plot_sweep(sweep: list[dict[str, Any]], path: Path, title: str) -> bool:
    """Write precision/recall/F1 against threshold as a PNG; False when matplotlib is absent."""
    try:
        figure_mod = importlib.import_module("matplotlib.figure")
    except ImportError:
        return False
    fig = figure_mod.Figure(figsize=(6, 4))
    ax = fig.add_subplot(1, 1, 1)
    xs = [p["threshold"] for p in sweep]
    for key in ("f1", "precision", "recall"):
        ax.plot(xs, [p[key] for p in sweep], label=key)
    ax.set_xlabel("threshold (flag when score >= threshold)")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return True


def holdout_block(
    rows: list[EvalRow],
    result: RunResult[RowOutcome],
    frac: float,
    seed: int,
    metric: str,
    on_error: OnError = "flag",
) -> TunedBlock | None:
    tune, report = split_by_group(rows, frac, seed=seed)
    tuned = tuned_block(tune, report, result.outcomes, metric, on_error)
    if tuned is not None:
        tuned.split = {"tune_frac": frac, "seed": seed, "grouped_by": "source document"}
    return tuned


def run(args: argparse.Namespace) -> int:
    configure_logs(args, always=False)
    console = Console()
    check_outputs({"--json-out": args.json_out})
    threshold, source = flag_threshold(args)
    rows, result, judge_name, settings = load_and_score(args, console)
    summary = summarize(
        rows, result.outcomes, threshold=threshold, threshold_source=source, on_error=args.on_error
    )
    if args.holdout_frac is not None:
        summary.holdout = holdout_block(
            rows, result, args.holdout_frac, args.seed, "f1", args.on_error
        )
    out: dict[str, Any] = {
        "dataset": str(args.dataset),
        "method": settings.method,
        "settings": settings.model_dump(mode="json"),
        "judge": judge_name,
        "task_filter": args.task,
        "limit": args.limit,
        "run": {
            "wall_seconds": result.wall_seconds,
            "scored_this_run": result.scored,
            "failed_this_run": result.failed,
            "resumed": result.resumed,
            "jobs": args.jobs,
            "ray": args.ray,
            "ray_workers": args.ray_workers,
        },
        **summary.model_dump(mode="json"),
    }
    title = f"{settings.method} / {judge_name} on {args.dataset.name}"
    print_summary(console, summary, title)
    if args.json_out is not None:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        write_output_text(args.json_out, json.dumps(out, indent=2) + "\n", "--json-out")
        png = args.json_out.with_suffix(".png")
        if summary.sweep and plot_sweep(summary.sweep, png, title):
            console.print(f"wrote {args.json_out} and {png}")
        else:
            console.print(f"wrote {args.json_out}")
    return 1 if summary.failed else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help=COMMANDS["eval"].summary)
    add_dataset_flags(p)
    add_scorer_flags(p)
    p.add_argument(
        "--on-error",
        choices=["flag", "pass"],
        default="flag",
        help="how rows the judge could not score count in the answer figures: flagged (a "
        "fail-closed policy abstains or escalates them; default) or passed. The figures over "
        "scored rows only are reported beside them",
    )
    p.add_argument(
        "--policy",
        type=Path,
        default=None,
        metavar="PATH",
        help="score with this policy's scorer settings (the flags above override them)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="flag when score >= T (default: the scorer's)",
    )
    p.add_argument("--json-out", type=Path, default=None, metavar="PATH")
    add_log_flag(p)
    p.set_defaults(func=run)
