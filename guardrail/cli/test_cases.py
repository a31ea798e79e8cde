"""``guardrail test POLICY CASES.yaml``: run a policy's test cases; exit 1 on any failure.

Each case is a question, an answer and its contexts with what must happen (topic, action,
flagged or not, queue, reason text, score bounds). The cases run through a real guard on the
offline judge unless ``--judge`` names another one; escalations stay in memory and no audit
record is written. ``--junit-xml OUT`` writes the results for CI. A case that raises counts as
a failure: a test that could not run did not pass.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "test",
        help=COMMANDS["test"].summary,
        description="Run a policy's test cases through a real guard; print a table; exit 1 "
        "when any case fails or errors.",
    )
    p.add_argument("policy", type=Path, metavar="POLICY.yaml")
    p.add_argument("cases", type=Path, metavar="CASES.yaml")
    p.add_argument(
        "--judge", default=None, metavar="SPEC", help="judge spec (default: the policy's)"
    )
    p.add_argument("--junit-xml", type=Path, default=None, metavar="OUT.xml")
    p.add_argument("--case", default=None, metavar="NAME", help="run only this case")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from guardrail.cli.check import require_key
    from guardrail.policy import load_policy
    from guardrail.policytest import load_cases, run_cases, write_junit

    require_key(args.judge)
    cases = load_cases(args.cases)
    if args.case is not None and args.case not in {c.name for c in cases.cases}:
        raise ConfigError(f"{args.cases}: no case named {args.case!r}")
    policy = load_policy(args.policy)
    judge = args.judge or policy.scorer.judge
    results = run_cases(policy, cases, judge=args.judge, only=args.case)
    table = Table(title=f"{args.cases.name} on policy {policy.name} (judge {judge})")
    for column in ("case", "result", "topic", "action", "score"):
        table.add_column(column, no_wrap=column == "case")
    for r in results:
        o = r.observed
        score = "—" if o.get("score") is None else f"{o['score']:.2f}"
        verdict = (
            "[green]pass[/green]"
            if r.passed
            else ("[red]ERROR[/red]" if r.error else "[red]FAIL[/red]")
        )
        table.add_row(r.name, verdict, o.get("topic", ""), o.get("action", ""), score)
    console = Console()
    console.print(table)
    failed = [r for r in results if not r.passed]
    for r in failed:
        console.print(f"[bold]{r.name}[/bold]", highlight=False)
        for line in [r.error] if r.error else r.failures:
            console.print(f"  {line}", highlight=False, markup=False)
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if args.junit_xml is not None:
        write_junit(args.junit_xml, results, suite=args.cases.name, policy=policy.name, judge=judge)
    return 1 if failed else 0
