"""``guardrail calibrate``: choose a policy threshold on labelled rows.

Scores the dataset (or reuses a ``--resume-file`` from ``guardrail eval`` so nothing is scored
twice), picks the threshold that maximizes ``--metric``, and writes it into a copy of the policy.
The figure at that threshold is measured on the rows it was tuned on unless ``--holdout-frac``
is given, and the output says which.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from guardrail._fs import check_outputs, write_output_text
from guardrail.cli.calibrate_reviews import add_review_flags, run_from_reviews
from guardrail.cli.commands import COMMANDS
from guardrail.cli.dataset_scoring import load_and_score
from guardrail.cli.options import add_dataset_flags, add_scorer_flags
from guardrail.evaluation.calibrate import ALL_TOPICS, write_policy_threshold
from guardrail.evaluation.datasets import split_by_group
from guardrail.evaluation.metrics import METRICS
from guardrail.evaluation.results import tuned_block
from guardrail.exceptions import ConfigError


def run(args: argparse.Namespace) -> int:
    console = Console()
    if not args.policy.is_file():
        raise ConfigError(f"{args.policy}: policy file not found")
    check_outputs({"--json-out": args.json_out, "--out": args.out})
    if args.from_reviews is not None:
        if args.dataset is not None:
            raise ConfigError("give a dataset or --from-reviews, not both")
        return run_from_reviews(args)
    if args.dataset is None or args.out is None:
        raise ConfigError("a DATASET and --out are required (or use --from-reviews DB)")
    rows, result, judge_name, settings = load_and_score(args, console)
    if args.holdout_frac is not None:
        tune, report = split_by_group(rows, args.holdout_frac, seed=args.seed)
    else:
        tune = report = rows
    block = tuned_block(tune, report, result.outcomes, args.metric)
    if block is None:
        raise ConfigError("no row was scored; nothing to calibrate on")
    threshold = block.threshold
    same = block.tuned_on_same_rows
    where = "these same rows" if same else f"{block.n} held-out rows"
    note = (
        f"threshold {threshold:g} set by `guardrail calibrate` ({settings.method}, judge "
        f"{judge_name}) to maximize {args.metric} on {block.tuned_rows} rows of "
        f"{args.dataset.name}.\n{args.metric} {block.answer[args.metric]:.3f} measured on "
        f"{where}" + (" (tuned on the same rows: optimistic)." if same else ".")
    )
    topics = write_policy_threshold(args.policy, args.out, threshold, topic=args.topic, note=note)
    failed = sum(1 for r in rows if r.id in result.outcomes and not result.outcomes[r.id].ok)
    console.print(
        f"threshold {threshold:g} maximizes {args.metric} on {block.tuned_rows} rows "
        f"(tuned on these rows); written for topic(s) {', '.join(topics)} to {args.out}"
    )
    a = block.answer
    label = "[bold]tuned on these same rows: optimistic[/bold]" if same else "held-out rows"
    console.print(
        f"at {threshold:g}: P {a['precision']:.3f} R {a['recall']:.3f} F1 {a['f1']:.3f} "
        f"on {block.n} rows ({label}; unscored rows counted as flagged); failed rows: {failed}"
    )
    if args.json_out is not None:
        out: dict[str, Any] = {
            "dataset": str(args.dataset),
            "method": settings.method,
            "judge": judge_name,
            "policy_in": str(args.policy),
            "policy_out": str(args.out),
            "topics": topics,
            "failed": failed,
            **block.model_dump(mode="json"),
        }
        write_output_text(args.json_out, json.dumps(out, indent=2) + "\n", "--json-out")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("calibrate", help=COMMANDS["calibrate"].summary)
    add_dataset_flags(p)
    for action in p._actions:  # DATASET is optional with --from-reviews
        if action.dest == "dataset":
            action.nargs, action.default = "?", None
    add_review_flags(p)
    add_scorer_flags(p)
    p.add_argument("--metric", choices=METRICS[:3], default="f1")
    p.add_argument(
        "--policy",
        type=Path,
        required=True,
        metavar="IN.yaml",
        help="the policy to calibrate: its scorer settings score the rows (the flags above "
        "override them); the copy gets the new threshold",
    )
    p.add_argument("--out", type=Path, default=None, metavar="OUT.yaml")
    p.add_argument(
        "--topic",
        default=None,
        metavar="NAME",
        help=f"topic whose threshold to set ('{ALL_TOPICS}' for all; optional with one topic)",
    )
    p.add_argument("--json-out", type=Path, default=None, metavar="PATH")
    p.set_defaults(func=run, threshold=None)
