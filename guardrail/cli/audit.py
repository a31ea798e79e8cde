"""``guardrail audit verify PATH|URL``: check an audit trail's hash chain;
``guardrail audit recover PATH|URL --db DB``: add the turn records a crash left out.

PATH is a JSON Lines file; URL a ``postgresql://`` database holding the trail (the ``postgres``
extra). Both are checked by the same verifier, with the same output.

Exit codes: 0 the chain is intact; 1 a record was altered, inserted, removed or reordered (the
first bad line, its audit id and the reason are printed) or the ``--anchor`` record is gone;
2 the file does not exist.
"""

from __future__ import annotations

import argparse

from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError
from guardrail.storage import is_postgres_url, parse_target, require_store

_TRAIL_HELP = "the audit trail: a JSON Lines file or a postgresql:// URL"


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
    verify.add_argument("path", type=parse_target, metavar="PATH|URL", help=_TRAIL_HELP)
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
    recover.add_argument("path", type=parse_target, metavar="PATH|URL", help=_TRAIL_HELP)
    recover.add_argument(
        "--db",
        type=parse_target,
        required=True,
        metavar="PATH|URL",
        help="the review database: a file or a postgresql:// URL",
    )
    recover.set_defaults(func=_recover)


def _recover(args: argparse.Namespace) -> int:
    from guardrail.audit.recover import recover_turns
    from guardrail.audit.trail import open_audit_log
    from guardrail.queues.review_queue import ReviewQueue

    queue = ReviewQueue(require_store(args.db, "review database", "--db"))
    log = open_audit_log(args.path)
    try:
        recovered = recover_turns(log, queue)
    finally:
        log.close()
    print(f"recovered {len(recovered)} turn record(s)" + (": " if recovered else ""), end="")
    print(", ".join(recovered))
    return 0


def _verify(args: argparse.Namespace) -> int:
    from guardrail.audit.trail import verify_trail

    if not is_postgres_url(args.path) and not args.path.is_file():
        raise ConfigError(f"audit log not found: {args.path}")
    report = verify_trail(args.path, anchor=args.anchor)
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
            where = (
                f"rows with pos <= {n}"
                if is_postgres_url(args.path)
                else f"they end at byte {report.intact_bytes}"
            )
            print(f"{n} record{'' if n == 1 else 's'} intact before it; {where}")
    return 0 if report.ok else 1
