"""``guardrail eval``: score a labelled dataset and report detection figures.

Prints a table (answer-level P/R/F1/accuracy overall and per task, span-level P/R/F1) and, with
``--json-out``, writes every figure plus a threshold sweep; a PNG of the sweep is written next
to the JSON when matplotlib is installed. ``--resume-file`` makes the run resumable. Exit code:
0 when every row was scored, 1 when some rows failed (they are listed; figures use the rest),
2 on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from guardrail._fs import check_outputs
from guardrail.cli.commands import COMMANDS
from guardrail.cli.cost_flags import add_cost_flags
from guardrail.evaluation.datasets import EvalRow, load_rows, split_by_group
from guardrail.evaluation.distributed import EvalSpec, RayOptions, import_ray, ray_executor
from guardrail.evaluation.provenance import Selection, in_sample_note
from guardrail.evaluation.results import summarize, tuned_block
from guardrail.evaluation.runner import (
    ProgressFile,
    ProgressHeader,
    RowOutcome,
    RunResult,
    run_rows,
)
from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge
from guardrail.judges.registry import SPEC_HELP
from guardrail.localize.model import TokenLocalizer
from guardrail.policy import load_policy
from guardrail.scoring.base import Scorer
from guardrail.scoring.factory import build_scorer, judge_for
from guardrail.scoring.settings import (
    DEFAULT_THRESHOLD,
    METHODS,
    AnyScorerSettings,
    MetaRAGSettings,
    check_flag_threshold,
    with_overrides,
)


def scorer_settings(args: argparse.Namespace) -> AnyScorerSettings:
    """The ``--policy`` file's scorer block (else the defaults), overridden by the flags."""
    policy = getattr(args, "policy", None)
    base = load_policy(policy).scorer if policy is not None else MetaRAGSettings()
    return with_overrides(
        base,
        {
            "method": ("--method", args.method),
            "judge": ("--judge", args.judge),
            "window": ("--window", args.window),
            "overlap": ("--overlap", args.overlap),
            "judge_model": ("--judge-model", _path_text(args.judge_model)),
            "localizer_model": ("--localizer-model", _path_text(args.localizer_model)),
            "response_cache": ("--response-cache", _path_text(args.response_cache)),
            "protocol": ("--protocol", args.protocol),
            "cascade": ("--cascade", args.cascade),
        },
    )


def _path_text(path: Path | None) -> str | None:
    return None if path is None else str(path)


def flag_threshold(args: argparse.Namespace) -> tuple[float, str]:
    """``--threshold`` (validated) and where it came from; the default without the flag."""
    value = getattr(args, "threshold", None)
    if value is None:
        return DEFAULT_THRESHOLD, "scorer default"
    return check_flag_threshold(value), "--threshold"


def judge_label(judge: Judge, settings: AnyScorerSettings) -> str:
    """The judge's name plus any model files used, for the progress header and the output."""
    label = judge.name
    if settings.judge_model is not None:
        label += f" (verifier {settings.judge_model})"
    if settings.localizer_model is not None:
        label += f" (localizer {settings.localizer_model})"
    return label


def provenance_notes(
    rows: list[EvalRow], judge: Judge, scorer: Scorer, args: argparse.Namespace
) -> list[str]:
    """Warnings for every fitted model here that was trained on the rows being evaluated."""
    sel = Selection(
        dataset=args.dataset,
        rows=len(rows),
        filtered=any(v is not None for v in (args.task, args.limit, args.shuffle)),
        holdout_frac=args.holdout_frac,
        seed=args.seed,
    )
    from guardrail.judges.local import LocalJudge

    notes = []
    if isinstance(judge, LocalJudge) and judge.verifier == "trained":
        notes.append(in_sample_note("verifier", judge.model.meta, sel))
    if isinstance(judge, LocalJudge) and judge.verifier == "encoder":
        notes.append(in_sample_note("encoder verifier", judge.encoder.meta, sel))
    localizer = getattr(scorer, "localizer", None)
    if isinstance(localizer, TokenLocalizer):
        notes.append(in_sample_note("word localizer (span figures)", localizer.meta, sel))
    return [n for n in notes if n]


def add_scoring_args(p: argparse.ArgumentParser) -> None:
    """Options shared by ``eval`` and ``calibrate``: what to score and how."""
    p.add_argument("dataset", type=Path, help="JSON Lines file in the benchmark row schema")
    p.add_argument(
        "--method",
        choices=METHODS,
        default=None,
        help="scoring method (default: the policy's, else metarag)",
    )
    p.add_argument(
        "--judge",
        default=None,
        metavar="SPEC",
        help=f"{SPEC_HELP} (default: the policy's, else local)",
    )
    p.add_argument(
        "--judge-model",
        type=Path,
        default=None,
        metavar="PATH",
        help="with --judge local:trained: this verifier file instead of the packaged one "
        "(scripts/train_verifier.py writes it)",
    )
    p.add_argument(
        "--localizer-model",
        type=Path,
        default=None,
        metavar="PATH",
        help="this word-localizer file instead of the packaged one "
        "(scripts/train_localizer.py writes it)",
    )
    add_cost_flags(p, default_note="default: the policy's, else paper")
    p.add_argument(
        "--response-cache",
        type=Path,
        default=None,
        metavar="PATH",
        help="answer repeated temperature-0 judge calls from this SQLite file (opt-in); a "
        "second run over the same rows then costs no LLM tokens",
    )
    p.add_argument("--task", default=None, help="only rows of this task (qa, summary, ...)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N rows")
    p.add_argument(
        "--shuffle",
        type=int,
        default=None,
        metavar="SEED",
        help="shuffle rows with this seed before --limit (the shared files are sorted by task)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="rows scored at once")
    add_ray_args(p)
    p.add_argument(
        "--resume-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="JSON Lines progress file: finished rows are appended, a rerun skips them",
    )
    p.add_argument(
        "--window", type=int, default=None, help="rt4chart: chunk size in sentences (default 25)"
    )
    p.add_argument("--overlap", type=int, default=None, help="rt4chart: chunk overlap (default 10)")
    p.add_argument(
        "--holdout-frac",
        type=float,
        default=None,
        metavar="F",
        help="tune the threshold on a fraction F of the rows (grouped by source document) and "
        "report on the rest",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the --holdout-frac split")
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (default: on a terminal)"
    )


def add_ray_args(p: argparse.ArgumentParser) -> None:
    """``--ray`` and ``--ray-workers`` (``eval``, ``calibrate`` and ``rescore``)."""
    p.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="score on a Ray cluster: 'auto' (attach to a running local one, else start one) "
        "or a cluster address; needs pip install 'guardrail[ray]'. --jobs is then per worker",
    )
    p.add_argument(
        "--ray-workers",
        type=int,
        default=None,
        metavar="N",
        help="with --ray: this many workers, one CPU each (default: the cluster's CPUs)",
    )


def ray_options(args: argparse.Namespace) -> RayOptions | None:
    """The ``--ray`` options, or ``None`` for an in-process run."""
    if args.ray is None:
        if args.ray_workers is not None:
            raise ConfigError("--ray-workers needs --ray")
        return None
    options = RayOptions(address=args.ray, workers=args.ray_workers, jobs=args.jobs)
    import_ray()  # fail before anything is scored
    return options


def load_and_score(
    args: argparse.Namespace, console: Console
) -> tuple[list[EvalRow], RunResult[RowOutcome], str, AnyScorerSettings]:
    """Load the rows, build judge and scorer, score everything not already in the resume file."""
    settings = scorer_settings(args)
    threshold, _source = flag_threshold(args)
    options = ray_options(args)
    rows = load_rows(args.dataset, task=args.task, limit=args.limit, shuffle_seed=args.shuffle)
    judge = judge_for(settings)
    scorer = build_scorer(settings, judges={settings.judge: judge}, threshold=threshold)
    label = judge_label(judge, settings)
    for note in provenance_notes(rows, judge, scorer, args):
        console.print(f"[yellow]note:[/yellow] {note}")
    progress = None
    if args.resume_file is not None:
        header = ProgressHeader(method=settings.method, judge=label)
        progress = ProgressFile(args.resume_file, header)
    reference = None
    if any(r.target is not None for r in rows):
        from guardrail.scoring.reference import ReferenceMetric

        reference = ReferenceMetric(judge)
    show = not args.no_progress and sys.stderr.isatty()
    executor = None
    if options is not None:
        spec = EvalSpec.of(settings, threshold, reference=reference is not None)
        executor = ray_executor(spec, RowOutcome, options)
    result = asyncio.run(
        run_rows(
            rows,
            scorer,
            jobs=args.jobs,
            threshold=threshold,
            progress_file=progress,
            reference=reference,
            show_progress=show,
            executor=executor,
        )
    )
    if result.resumed:
        console.print(f"resumed {result.resumed} rows from {args.resume_file}")
    return rows, result, label, settings


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def print_summary(console: Console, summary: dict[str, Any], title: str) -> None:
    table = Table(title=title)
    for col in ("rows", "n", "P", "R", "F1", "Acc", "span P", "span R", "span F1"):
        table.add_column(col, justify="right" if col != "rows" else "left")
    blocks = [("all", summary), *sorted(summary["tasks"].items())]
    for name, blk in blocks:
        a, s = blk["answer"], blk["span"]
        span_cells = [_fmt(s[k]) for k in ("precision", "recall", "f1")] if s else ["-"] * 3
        table.add_row(
            name,
            str(blk["n"]),
            *(_fmt(a[k]) for k in ("precision", "recall", "f1", "accuracy")),
            *span_cells,
        )
    console.print(table)
    same = " (tuned on these same rows)" if summary["tuned_on_same_rows"] else ""
    console.print(
        f"threshold {summary['threshold']:g} ({summary['threshold_source']}){same}; "
        f"scored {summary['n']}/{summary['n_rows']}, failed {summary['failed']}"
    )
    cost = summary.get("cost") or {}
    if cost:
        console.print(
            f"per answer: {cost['judge_calls_per_answer']:.1f} judge calls, "
            f"{cost['prompt_tokens_per_answer'] + cost['completion_tokens_per_answer']:.0f} "
            f"tokens, {cost['seconds_per_answer']:.2f} s"
        )
    cascade = summary.get("cascade") or {}
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
    best = summary.get("best_on_same_rows")
    if best:
        console.print(
            f"best F1 over thresholds: {best['answer']['f1']:.3f} at {best['threshold']:g} "
            "[bold](tuned on these same rows: optimistic)[/bold]"
        )
    holdout = summary.get("holdout")
    if holdout:
        console.print(
            f"holdout: threshold {holdout['threshold']:g} tuned for {holdout['metric']} on "
            f"{holdout['tuned_rows']} rows; on the other {holdout['n']} rows "
            f"P {holdout['answer']['precision']:.3f} R {holdout['answer']['recall']:.3f} "
            f"F1 {holdout['answer']['f1']:.3f}"
        )
    if summary.get("reference"):
        ref = summary["reference"]
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
    rows: list[EvalRow], result: RunResult[RowOutcome], frac: float, seed: int, metric: str
) -> dict[str, Any] | None:
    tune, report = split_by_group(rows, frac, seed=seed)
    block = tuned_block(tune, report, result.outcomes, metric)
    if block is not None:
        block["split"] = {"tune_frac": frac, "seed": seed, "grouped_by": "source document"}
    return block


def run(args: argparse.Namespace) -> int:
    console = Console()
    check_outputs({"--json-out": args.json_out})
    threshold, source = flag_threshold(args)
    rows, result, judge_name, settings = load_and_score(args, console)
    summary = summarize(rows, result.outcomes, threshold=threshold, threshold_source=source)
    if args.holdout_frac is not None:
        summary["holdout"] = holdout_block(rows, result, args.holdout_frac, args.seed, "f1")
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
        **summary,
    }
    title = f"{settings.method} / {judge_name} on {args.dataset.name}"
    print_summary(console, summary, title)
    if args.json_out is not None:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
        png = args.json_out.with_suffix(".png")
        if summary["sweep"] and plot_sweep(summary["sweep"], png, title):
            console.print(f"wrote {args.json_out} and {png}")
        else:
            console.print(f"wrote {args.json_out}")
    return 1 if summary["failed"] else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help=COMMANDS["eval"].summary)
    add_scoring_args(p)
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
    p.set_defaults(func=run)
