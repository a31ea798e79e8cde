"""``guardrail probe``: test a chatbot before it goes live (HalluVault-style), and
``guardrail propose-facts``: propose the fact file from the deployment's documents.

``probe`` derives questions with known answers from a fact file (clingo), asks the answer
function each one in the paper's prompt, judges the replies with the similarity oracles, and
prints a table per rule type and per relation; ``--json-out`` and ``--html-out`` write the
reports, ``--progress`` makes the run resumable, ``--review-db`` sends every hallucination to
the review queue. Exit code: 0 when no reply was a hallucination and every call succeeded, 1
otherwise, 2 on bad input (fact file, --chatbot, flags).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console

from guardrail.cli.commands import COMMANDS
from guardrail.judges.base import ClosableJudge, Judge
from guardrail.judges.registry import SPEC_HELP
from guardrail.storage import Target, parse_target

T = TypeVar("T")


async def closing(judge: Judge, work: Awaitable[T]) -> T:
    """Await ``work``, then close the judge's client (an LLM judge's connection pool)."""
    try:
        return await work
    finally:
        if isinstance(judge, ClosableJudge):
            await judge.aclose()


def _rules(text: str | None) -> list[str] | None:
    return None if text is None else [r.strip() for r in text.split(",") if r.strip()]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _send_to_review(db: Target, records: list[Any], chatbot: str) -> int:
    """Every hallucination as a case in the review queue ``probe`` (idempotent per question)."""
    from guardrail.models import Decision, EscalationCase
    from guardrail.queues import ReviewQueue

    queue = ReviewQueue(db)
    now = datetime.now(timezone.utc).isoformat()
    added = 0
    for record in records:
        if not record.hallucination:
            continue
        reason = (
            f"probe: {record.outcome} on a {record.rule} question (expected {record.expected}, "
            f"got {record.verdict}); chatbot {chatbot}"
        )
        case = EscalationCase(
            case_id=f"probe-{record.id}",
            queue="probe",
            created_at=now,
            policy="probe",
            question=record.question,
            answer=record.reply,
            contexts=["expected answer: " + record.expected, "\n".join(record.derivation)],
            decision=Decision(
                action="escalate",
                actions=["escalate"],
                flagged=True,
                score=None,
                threshold=0.0,
                topic="probe",
                queue="probe",
                reason=reason,
            ),
        )
        added += queue.add(case)
    return added


def run_probe(args: argparse.Namespace) -> int:
    from guardrail.probe.chatbot import load_chatbot
    from guardrail.probe.extract import TripleExtractor, extractor_judge
    from guardrail.probe.facts import load_facts
    from guardrail.probe.html import render_html
    from guardrail.probe.oracles import THETA
    from guardrail.probe.reasoning import derive
    from guardrail.probe.report import print_tables, report
    from guardrail.probe.run import Prober, check_depth, plan, progress_file

    console = Console()
    base = load_facts(args.facts)
    chatbot = load_chatbot(args.chatbot)
    knowledge = derive(base, max_depth=check_depth(args.max_depth))
    asked = plan(base, rules=_rules(args.rules), limit=args.limit, knowledge=knowledge)
    judge = extractor_judge(args.judge)
    prober = Prober(chatbot, TripleExtractor(judge, base.relations), threads=args.jobs > 1)
    progress = None
    if args.progress is not None:
        progress = progress_file(args.progress, args.chatbot, judge.name)
    show = not args.no_progress and sys.stderr.isatty()
    work = prober.run(asked, jobs=args.jobs, progress_file=progress, show_progress=show)
    run = asyncio.run(closing(judge, work))
    if run.resumed:
        console.print(f"resumed {run.resumed} questions from {args.progress}")
    counts = {
        "triples": len(knowledge.facts),
        "derived": sum(1 for d in knowledge.derived if d.holds),
        "negations": sum(1 for d in knowledge.derived if not d.holds),
        "questions": len(asked),
    }
    out = report(
        run,
        facts=str(args.facts),
        chatbot=args.chatbot,
        judge=judge.name,
        counts=counts,
        settings={"rules": _rules(args.rules), "limit": args.limit, "jobs": args.jobs,
                  "max_depth": args.max_depth, "theta_nodes": THETA, "theta_edges": THETA},
    )  # fmt: skip
    console.print(
        f"{counts['triples']} triples, {counts['derived']} derived, {counts['questions']} "
        f"questions; chatbot {args.chatbot}, judge {judge.name}"
    )
    print_tables(console, out)
    overall = out["overall"]
    console.print(
        f"hallucinations: {overall['hallucinations']} of {overall['questions']} questions; "
        f"refused {overall['refused']}, unparsed {overall['unparsed']}, errors {overall['error']}"
    )
    if args.json_out is not None:
        _write(args.json_out, json.dumps(out, indent=2, ensure_ascii=False) + "\n")
        console.print(f"wrote {args.json_out}")
    if args.html_out is not None:
        _write(args.html_out, render_html(out, run.records))
        console.print(f"wrote {args.html_out}")
    if args.review_db is not None:
        added = _send_to_review(args.review_db, run.records, args.chatbot)
        console.print(f"sent {added} new cases to the review queue 'probe' in {args.review_db}")
    return 1 if overall["hallucinations"] or overall["error"] else 0


def run_propose(args: argparse.Namespace) -> int:
    from guardrail.probe.extract import TripleExtractor, extractor_judge
    from guardrail.probe.facts import Catalogue, load_facts
    from guardrail.probe.propose import propose, write_proposal

    console = Console(stderr=True)
    known = load_facts(args.relations, Catalogue).relations if args.relations else {}
    judge = extractor_judge(args.judge, split_subjects=True)
    proposal = asyncio.run(closing(judge, propose(args.docs, TripleExtractor(judge, known), known)))
    if not proposal.facts:
        console.print(f"no triples found in the {proposal.sentences} sentences of {args.docs}")
        return 1
    _write(args.out, write_proposal(proposal, folder=args.docs, judge=judge.name))
    console.print(
        f"wrote {args.out}: {len(proposal.facts)} proposed facts, {len(proposal.relations)} "
        f"relations from {proposal.sentences} sentences in {proposal.files} files; review it "
        "before `guardrail probe`"
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("probe", help=COMMANDS["probe"].summary, description=__doc__)
    p.add_argument("facts", type=Path, help="fact file: YAML (or .jsonl) triples and relations")
    p.add_argument(
        "--chatbot",
        required=True,
        metavar="MODULE:FUNCTION",
        help="the answer function to test (as Guard.wrap takes; or path/file.py:function)",
    )
    p.add_argument(
        "--rules",
        default=None,
        metavar="LIST",
        help="only these rule types, comma-separated: fact, symmetric, inverse, transitive, "
        "composite, negation (default: all)",
    )
    p.add_argument(
        "--limit", type=int, default=None, metavar="N", help="only the first N questions"
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="questions asked at once")
    p.add_argument(
        "--judge",
        default="local",
        metavar="SPEC",
        help=f"reads the replies' knowledge into triples: {SPEC_HELP} (default: local, offline)",
    )
    p.add_argument(
        "--max-depth", type=int, default=3, metavar="N", help="rule applications per derivation"
    )
    p.add_argument(
        "--progress",
        "--resume-file",
        dest="progress",
        type=Path,
        default=None,
        metavar="PATH",
        help="JSON Lines progress file: finished questions are appended, a rerun skips them",
    )
    p.add_argument("--json-out", type=Path, default=None, metavar="PATH")
    p.add_argument("--html-out", type=Path, default=None, metavar="PATH")
    p.add_argument(
        "--review-db",
        type=parse_target,
        default=None,
        metavar="PATH|URL",
        help="send every hallucination to this review queue (a SQLite file or a postgresql:// "
        "URL; `guardrail review`)",
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (default: on a terminal)"
    )
    p.set_defaults(func=run_probe)

    q = sub.add_parser("propose-facts", help=COMMANDS["propose-facts"].summary)
    q.add_argument("docs", type=Path, help="folder of documents (.md, .txt, .rst)")
    q.add_argument("--out", type=Path, required=True, metavar="PATH", help="fact file to write")
    q.add_argument(
        "--relations",
        type=Path,
        default=None,
        metavar="PATH",
        help="a relation catalogue (or fact file) whose relations to look for first",
    )
    q.add_argument(
        "--judge", default="local", metavar="SPEC", help=f"{SPEC_HELP} (default: local, offline)"
    )
    q.set_defaults(func=run_propose)
