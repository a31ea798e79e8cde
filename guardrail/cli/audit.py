"""``guardrail audit verify PATH``: check an audit log's hash chain;
``guardrail audit recover PATH --db DB``: add the turn records a crash left out.

Exit codes: 0 the chain is intact; 1 a record was altered, inserted, removed or reordered (the
first bad line, its audit id and the reason are printed) or the ``--anchor`` record is gone;
2 the file does not exist.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from guardrail.audit.chain import verify_log
from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    audit = sub.add_parser("audit", help=COMMANDS["audit"].summary)
    audit_sub = audit.add_subparsers(dest="audit_command", metavar="ACTION")
    audit_sub.required = True
    verify = audit_sub.add_parser(
        "verify",
        help="check every record's hash and link; name the first bad line",
        description="Exit 0 if the chain is intact, 1 if a record was altered, inserted, "
        "removed or reordered, 2 if the file is missing.",
    )
    verify.add_argument("path", type=Path, metavar="PATH", help="the audit log (JSON Lines)")
    verify.add_argument(
        "--anchor",
        metavar="HASH",
        help="a head hash printed by an earlier verify; fail if that record is gone "
        "(catches records cut off the end or a re-hashed tail)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(func=_verify)
    recover = audit_sub.add_parser(
        "recover",
        help="append the turn record of every review case the log lacks (after a crash)",
        description="A process killed between escalating a turn and writing its audit record "
        "leaves a review case without a record; this rebuilds those records from the cases "
        "(event_name 'turn_recovered'). Safe to run at any time; serve runs it at start-up.",
    )
    recover.add_argument("path", type=Path, metavar="PATH", help="the audit log (JSON Lines)")
    recover.add_argument("--db", type=Path, required=True, help="the review database")
    recover.set_defaults(func=_recover)


def _recover(args: argparse.Namespace) -> int:
    from guardrail.audit.log import AuditLog
    from guardrail.audit.recover import recover_turns
    from guardrail.queues.sqlite import SQLiteQueue

    if not args.db.is_file():
        raise ConfigError(f"review database not found: {args.db}")
    with AuditLog(args.path) as log:
        recovered = recover_turns(log, SQLiteQueue(args.db))
    print(f"recovered {len(recovered)} turn record(s)" + (": " if recovered else ""), end="")
    print(", ".join(recovered))
    return 0


def _verify(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.is_file():
        raise ConfigError(f"audit log not found: {path}")
    report = verify_log(path, anchor=args.anchor)
    if args.json:
        print(report.model_dump_json())
    elif report.ok:
        print(f"OK: {report.records} records, chain intact")
        print(f"head: {report.head_hash}")
    else:
        print(f"FAIL: {report.describe()}")
        if report.first_bad_line is None:
            print(f"{report.records} records checked, chain intact; head: {report.head_hash}")
        else:
            n = report.records
            print(
                f"{n} record{'' if n == 1 else 's'} intact before it; they end at byte "
                f"{report.intact_bytes}"
            )
    return 0 if report.ok else 1
