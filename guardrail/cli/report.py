"""``guardrail report AUDIT --html OUT [--json OUT]``: what the guard did, for the people who
answer for it.

AUDIT is a JSON Lines audit log or a ``postgresql://`` trail; ``--db`` adds the review queue's
waiting and handling times. ``--since`` / ``--until`` take an ISO date or time (UTC unless an
offset is given; ``--until`` is exclusive). ``--verify`` also checks the hash chain and exits 1
when it does not hold, so a report is never mistaken for evidence from a tampered log.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from pathlib import Path

from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError
from guardrail.storage import parse_target


def _when(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO date or time (e.g. 2026-03-01 or 2026-03-01T12:00)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help=COMMANDS["report"].summary,
        description="Decisions per topic over time, flag rates, score distributions against "
        "each threshold, the most flagged factoids and spans, judge failures and latency, "
        "and review-queue times and overturn rates, as one self-contained HTML page "
        "(inline SVG charts, nothing fetched) and/or JSON.",
    )
    p.add_argument(
        "audit",
        type=parse_target,
        metavar="AUDIT",
        help="a JSON Lines audit log or a postgresql:// URL",
    )
    p.add_argument(
        "--db",
        type=parse_target,
        default=None,
        metavar="PATH|URL",
        help="the review database (SQLite file or postgresql:// URL)",
    )
    p.add_argument(
        "--since", type=_when, default=None, metavar="WHEN", help="first time included (UTC)"
    )
    p.add_argument(
        "--until", type=_when, default=None, metavar="WHEN", help="first time excluded (UTC)"
    )
    p.add_argument("--html", type=Path, default=None, metavar="OUT.html")
    p.add_argument("--json", type=Path, default=None, metavar="OUT.json")
    p.add_argument(
        "--verify", action="store_true", help="check the hash chain too; exit 1 if it is broken"
    )
    p.set_defaults(func=run)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from guardrail.report import build_report, render_html

    if args.html is None and args.json is None:
        raise ConfigError("nothing to write: pass --html OUT and/or --json OUT")
    if args.since and args.until and args.since >= args.until:
        raise ConfigError("--since must be before --until")
    from guardrail.storage import require_store

    db = None if args.db is None else require_store(args.db, "review database", "--db")
    report = build_report(
        args.audit, review_db=db, since=args.since, until=args.until, verify=args.verify
    )
    if args.json is not None:
        _write(args.json, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.html is not None:
        _write(args.html, render_html(report))
    audit = report["audit"]
    turns = sum(t["turns"] for t in audit["topics"].values())
    print(
        f"{turns} turns in {len(audit['topics'])} topic(s), {audit['lines']} lines read"
        + (f", {audit['unreadable_lines']} UNREADABLE" if audit["unreadable_lines"] else "")
        + "".join(f"; wrote {o}" for o in (args.html, args.json) if o is not None)
    )
    chain = report["chain"]
    if chain is not None:
        print(("chain OK: " if chain["ok"] else "chain BROKEN: ") + chain["detail"])
        return 0 if chain["ok"] else 1
    return 0
