"""``guardrail rescore LOG --policy POLICY --out NEW.jsonl``: re-score logged turns.

LOG is a guardrail audit log or a chat-log JSON Lines file (schemas in
:mod:`guardrail.evaluation.turns`). Each re-scorable turn gets a new score and the decision
POLICY would take; NEW.jsonl has one line per turn (old outcome, new outcome, whether the
decision changed, or why the turn could not be re-scored) and a last ``"kind": "summary"``
line. Finished turns go to a progress file as they complete, so an interrupted run resumes
where it stopped; ``--ray`` spreads the turns over a Ray cluster. Exit code: 0 when every
re-scorable turn was scored, 1 when some failed (a rerun retries them), 2 on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from guardrail._fs import check_outputs
from guardrail.cli.commands import COMMANDS
from guardrail.cli.options import (
    add_deadline_flags,
    add_progress_flag,
    add_ray_flags,
    judge_overrides,
    ray_options,
)
from guardrail.evaluation.distributed import ray_executor
from guardrail.evaluation.rescore import (
    RescoreSpec,
    TurnResult,
    summary_of,
    turn_line,
    write_output,
)
from guardrail.evaluation.runner import LineProgress, ProgressHeader, local_executor, run_items
from guardrail.evaluation.turns import Turn, load_turns
from guardrail.exceptions import ConfigError
from guardrail.policy import load_policy
from guardrail.render import print_table
from guardrail.scoring.settings import with_overrides


def _turn_id(turn: Turn) -> str:
    return turn.id


def _print_summary(console: Console, summary: dict[str, Any], out: Path) -> None:
    table = Table(title=f"re-scored under policy {summary['policy']}")
    table.add_column("turns", justify="left")
    table.add_column("count", justify="right", no_wrap=True)
    for label, key in (
        ("in the log", "turns"),
        ("re-scored", "rescored"),
        ("not re-scorable", "not_rescorable"),
        ("failed", "failed"),
        ("with an old decision", "compared"),
        ("decision changed", "decisions_changed"),
        ("flagged now", "flagged_now"),
    ):
        table.add_row(label, str(summary[key]))
    print_table(table, console)
    for change, count in summary["changes"].items():
        console.print(f"  {change}: {count}")
    for reason, count in summary["not_rescorable_reasons"].items():
        console.print(f"[yellow]not re-scorable ({count}):[/yellow] {reason}")
    chain = summary.get("chain")
    if chain is not None and not chain["ok"]:
        console.print(
            f"[red]warning:[/red] the audit chain does not verify "
            f"(first bad line {chain['first_bad_line']}); run guardrail audit verify"
        )
    console.print(f"wrote {out}")


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.out.resolve() == args.log.resolve():
        raise ConfigError("--out must not be the log being re-scored")
    check_outputs({"--out": args.out})
    policy = load_policy(args.policy)
    scorer = with_overrides(policy.scorer, judge_overrides(args))
    if scorer != policy.scorer:
        policy = policy.model_copy(update={"scorer": scorer})
    options = ray_options(args)
    kind, turns, _others = load_turns(args.log, args.contexts)
    todo = [t for t in turns if t.rescorable]
    spec = RescoreSpec.of(policy)
    header = ProgressHeader(
        method=f"rescore:{policy.scorer.method}",
        judge=f"{policy.scorer.judge}; policy {policy.name}@{policy.content_hash[:12]}",
    )
    default_progress = args.progress is None
    progress_path = args.out.with_name(args.out.name + ".progress") if default_progress else None
    progress = LineProgress(progress_path or args.progress, header, TurnResult)
    execute = (
        ray_executor(spec, TurnResult, options)
        if options is not None
        else local_executor(spec.build(), args.jobs)
    )
    show = not args.no_progress and sys.stderr.isatty()
    result = asyncio.run(
        run_items(
            todo, _turn_id, execute, progress_file=progress, show_progress=show, label="rescoring"
        )
    )
    if result.resumed:
        console.print(f"resumed {result.resumed} turns from {progress.path}")
    lines = [turn_line(t, result.outcomes.get(t.id)) for t in turns]
    summary = summary_of(lines, policy=policy, log=str(args.log))
    summary["log_kind"] = kind
    if kind == "audit":
        from guardrail.audit.chain import verify_log

        report = verify_log(args.log)
        summary["chain"] = {"ok": report.ok, "first_bad_line": report.first_bad_line}
    write_output(args.out, lines, summary)
    _print_summary(console, summary, args.out)
    if summary["failed"]:
        return 1
    if default_progress:
        progress.path.unlink(missing_ok=True)  # the output is complete; nothing to resume
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rescore", help=COMMANDS["rescore"].summary)
    p.add_argument("log", type=Path, help="a guardrail audit log or a chat-log JSON Lines file")
    p.add_argument(
        "--policy", type=Path, required=True, metavar="PATH", help="re-score under this policy"
    )
    p.add_argument(
        "--out", type=Path, required=True, metavar="PATH", help="write the scored JSONL here"
    )
    p.add_argument(
        "--contexts",
        type=Path,
        default=None,
        metavar="PATH",
        help="audit logs: JSON Lines of {id: audit_id, contexts: [...]} (plus question and "
        "answer for hashed records); the audit log itself never holds the contexts",
    )
    p.add_argument(
        "--progress",
        type=Path,
        default=None,
        metavar="PATH",
        help="progress file, so a rerun skips finished turns (default: OUT.progress, "
        "removed after a complete run)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="turns scored at once")
    add_deadline_flags(p)
    add_ray_flags(p)
    add_progress_flag(p)
    p.set_defaults(func=run)
