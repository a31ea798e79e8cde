"""``guardrail review``: work the escalation queue from a terminal.

::

    guardrail review list [--db PATH|URL] [--queue Q] [--state open] [--json]
    guardrail review show ID [--json]
    guardrail review claim ID --reviewer NAME
    guardrail review next --reviewer NAME [--queue Q]      claim the oldest open case
    guardrail review resolve ID (--approve | --reject | --edit FILE) [--reviewer NAME] [--note T]
    guardrail review outbox [--json]                  webhook deliveries still pending
    guardrail review redeliver --url URL --secret-env VAR

``ID`` may be any unique prefix of a case id, as with git (``guardrail review show 755e``).

The database defaults to ``guardrail-review.sqlite3`` in the working directory; ``--db`` and
``--audit-log`` also take a ``postgresql://`` URL (the ``postgres`` extra). No environment
variable is read except the one ``--secret-env`` names. Every review error (unknown case, wrong
state, missing database) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from guardrail.audit.review import record_resolutions
from guardrail.audit.trail import open_audit_log
from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_REVIEW_DB
from guardrail.queues.outbox import DatabaseOutbox
from guardrail.queues.review_queue import (
    STATES,
    CaseNotFoundError,
    ReviewError,
    ReviewQueue,
    StoredCase,
)
from guardrail.queues.webhook import WebhookSink
from guardrail.render import print_table
from guardrail.storage import Target, parse_target, require_store

CommandFunc = Callable[[argparse.Namespace], int]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("review", help=COMMANDS["review"].summary)
    rsub = p.add_subparsers(dest="review_command", metavar="ACTION", parser_class=type(p))
    rsub.required = True

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        type=parse_target,
        default=Path(DEFAULT_REVIEW_DB),
        metavar="PATH|URL",
        help=f"review database: a file or postgresql://... (default {DEFAULT_REVIEW_DB})",
    )
    common.add_argument(
        "--audit-log",
        type=parse_target,
        default=Path(DEFAULT_AUDIT_LOG),
        metavar="PATH|URL",
        help=f"resolutions are appended here: a file or postgresql://... "
        f"(default {DEFAULT_AUDIT_LOG})",
    )

    ls = rsub.add_parser("list", parents=[common], help="list cases (open ones by default)")
    ls.add_argument("--queue", help="only this named queue")
    ls.add_argument("--state", default="open", choices=[*STATES, "all"])
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=_wrap(_list))

    id_help = "the case id, or any unique prefix of it"
    show = rsub.add_parser("show", parents=[common], help="show one case in full")
    show.add_argument("case_id", metavar="ID", help=id_help)
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=_wrap(_show))

    claim = rsub.add_parser("claim", parents=[common], help="take an open case")
    claim.add_argument("case_id", metavar="ID", help=id_help)
    claim.add_argument("--reviewer", required=True, metavar="NAME")
    claim.set_defaults(func=_wrap(_claim))

    nxt = rsub.add_parser("next", parents=[common], help="claim the oldest open case")
    nxt.add_argument("--reviewer", required=True, metavar="NAME")
    nxt.add_argument("--queue", help="only this named queue")
    nxt.set_defaults(func=_wrap(_next))

    res = rsub.add_parser("resolve", parents=[common], help="close a claimed case")
    res.add_argument("case_id", metavar="ID", help=id_help)
    how = res.add_mutually_exclusive_group(required=True)
    how.add_argument("--approve", action="store_true", help="keep the original answer")
    how.add_argument("--reject", action="store_true", help="the answer must not be shown")
    how.add_argument("--edit", metavar="FILE", help="use FILE's text as the answer (- = stdin)")
    res.add_argument("--reviewer", metavar="NAME", help="must match the claimer when given")
    res.add_argument("--note", metavar="TEXT")
    res.set_defaults(func=_wrap(_resolve))

    out = rsub.add_parser("outbox", parents=[common], help="webhook deliveries still pending")
    out.add_argument("--json", action="store_true")
    out.set_defaults(func=_wrap(_outbox))

    red = rsub.add_parser("redeliver", parents=[common], help="retry pending webhook deliveries")
    red.add_argument("--url", required=True, help="the webhook URL the cases were meant for")
    red.add_argument(
        "--secret-env", required=True, metavar="VAR", help="environment variable holding the secret"
    )
    red.set_defaults(func=_wrap(_redeliver))


def _wrap(fn: CommandFunc) -> CommandFunc:
    """Review errors are user errors: turn them into ConfigError (one line, exit 2)."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except ReviewError as exc:
            raise ConfigError(str(exc)) from exc

    return run


def _db(args: argparse.Namespace) -> Target:
    return require_store(args.db, "review database", "--db")


def _queue(args: argparse.Namespace) -> ReviewQueue:
    return ReviewQueue(_db(args), on_resolve=record_resolutions(open_audit_log(args.audit_log)))


def full_id(queue: ReviewQueue, given: str) -> str:
    """The case id ``given`` names: the id itself, or the one case whose id starts with it.

    :class:`CaseNotFoundError` when no case matches, :class:`ReviewError` naming the
    candidates when several do."""
    try:
        return queue.get(given).case_id
    except CaseNotFoundError as exc:
        missing = exc
    matches = sorted(c.case_id for c in queue.list() if given and c.case_id.startswith(given))
    if not matches:
        raise missing
    if len(matches) > 1:
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise ReviewError(f"{given!r} matches {len(matches)} cases ({shown}); give more of the id")
    return matches[0]


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _print_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _list(args: argparse.Namespace) -> int:
    state = None if args.state == "all" else args.state
    cases = _queue(args).list(queue=args.queue, state=state)
    if args.json:
        _print_json([c.model_dump(mode="json") for c in cases])
        return 0
    if not cases:
        _console().print(f"no {args.state if state else ''} cases".replace("  ", " "))
        return 0
    # Two lines a case, so that a long id and long names still fit 80 columns: the question
    # under its id, the reviewer under the state, the topic under the queue.
    table = Table(title=f"{len(cases)} case(s)", title_justify="left")
    table.add_column("id\nquestion", no_wrap=True)  # ids and figures are never cut
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("state\nreviewer")  # labels: they wrap when the terminal is narrow
    table.add_column("queue\ntopic")
    for c in cases:
        score = c.case.decision.score
        table.add_row(
            Text.assemble(c.case_id, "\n", (_short(c.case.question, 80), "dim")),
            "—" if score is None else f"{score:.2f}",
            Text("\n".join(filter(None, (c.state, c.reviewer)))),
            Text(f"{c.queue}\n{c.case.decision.topic}"),
        )
    print_table(table, _console())
    return 0


def _show(args: argparse.Namespace) -> int:
    queue = _queue(args)
    stored = queue.get(full_id(queue, args.case_id))
    if args.json:
        _print_json(stored.model_dump(mode="json"))
        return 0
    _render_case(_console(), stored)
    return 0


def _render_case(console: Console, stored: StoredCase) -> None:
    case, d = stored.case, stored.case.decision
    console.print(f"[bold]case {escape(case.case_id)}[/]  queue={escape(case.queue)}")
    who = f" by {escape(stored.reviewer)}" if stored.reviewer else ""
    outcome = f" ({stored.outcome})" if stored.outcome else ""
    console.print(f"state: [bold]{stored.state}[/]{outcome}{who}   created {case.created_at}")
    # The reason starts with the score, the threshold and the topic: print them once.
    console.print(f"decision: {' + '.join(d.actions) or d.action}")
    console.print(f"reason: {escape(d.reason)}")
    console.print(f"\n[bold]question[/]\n{escape(case.question)}")
    console.print(f"\n[bold]answer[/]\n{escape(case.answer)}")
    if case.report and case.report.factoids:
        table = Table(title="factoids", title_justify="left")
        for col in ("#", "score", "flag"):
            table.add_column(col, no_wrap=True)
        table.add_column("claim")
        for f in case.report.factoids:
            table.add_row(str(f.index), f"{f.score:.2f}", "⚑" if f.flagged else "", escape(f.text))
        print_table(table, console)
    for i, ctx in enumerate(case.contexts):
        console.print(f"\n[bold]passage [{i + 1}][/]\n{escape(_short(ctx, 400))}")
    if stored.state == "resolved":
        console.print(f"\n[bold]final answer[/]\n{escape(stored.final_answer or '(none)')}")
        if stored.note:
            console.print(f"note: {escape(stored.note)}")


def _claim(args: argparse.Namespace) -> int:
    queue = _queue(args)
    stored = queue.claim(full_id(queue, args.case_id), args.reviewer)
    _console().print(f"claimed {escape(stored.case_id)} for {escape(stored.reviewer or '')}")
    return 0


def _next(args: argparse.Namespace) -> int:
    stored = _queue(args).claim_next(args.reviewer, args.queue)
    if stored is None:
        _console().print("no open case to claim")
        return 1
    _console().print(f"claimed {escape(stored.case_id)} for {escape(stored.reviewer or '')}")
    return 0


def _read_edit(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read edited answer from {path}: {exc.strerror}") from exc


def _resolve(args: argparse.Namespace) -> int:
    queue = _queue(args)
    case_id = full_id(queue, args.case_id)
    if args.approve:
        res = queue.resolve(case_id, "approved", note=args.note, reviewer=args.reviewer)
    elif args.reject:
        res = queue.resolve(case_id, "rejected", note=args.note, reviewer=args.reviewer)
    else:
        text = _read_edit(args.edit).strip()
        res = queue.resolve(case_id, "edited", text, note=args.note, reviewer=args.reviewer)
    _console().print(f"resolved {escape(res.case_id)}: {res.outcome} by {escape(res.reviewer)}")
    return 0


def _outbox(args: argparse.Namespace) -> int:
    entries = DatabaseOutbox(_db(args)).pending()
    if args.json:
        _print_json([e.model_dump(mode="json") for e in entries])
        return 0
    console = _console()
    if not entries:
        console.print("outbox empty: every case was delivered")
        return 0
    table = Table(title=f"{len(entries)} undelivered case(s)", title_justify="left")
    for col in ("id", "destination", "attempts"):
        table.add_column(col, no_wrap=True)
    table.add_column("last error")
    table.add_column("since", no_wrap=True)
    for e in entries:
        table.add_row(
            escape(e.case.case_id),
            escape(e.destination),
            str(e.attempts),
            escape(e.last_error or ""),
            e.created_at,
        )
    print_table(table, console)
    return 0


def _redeliver(args: argparse.Namespace) -> int:
    db = _db(args)
    secret = os.environ.get(args.secret_env, "")
    if not secret:
        raise ConfigError(f"environment variable {args.secret_env} is not set or empty")
    sink = WebhookSink(args.url, secret, outbox=DatabaseOutbox(db))
    report = asyncio.run(sink.redeliver())
    _console().print(f"delivered {len(report.delivered)}, still pending {len(report.pending)}")
    return 0 if not report.pending else 1
