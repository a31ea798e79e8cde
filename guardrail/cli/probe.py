"""``guardrail probe``: test a chatbot before it goes live (HalluVault-style), and
``guardrail propose-facts``: propose the fact file from the deployment's documents.

``probe`` derives questions with known answers from a fact file (clingo), asks the chatbot (an
answer function, or a model named like a judge: openai:MODEL, openai-compatible:MODEL@URL,
anthropic:MODEL) each one in the paper's prompt, judges the replies with the similarity
oracles, and prints a table per rule type and per relation; ``--json-out`` and ``--html-out``
write the reports, ``--progress`` makes the run resumable, ``--review-db`` sends every
hallucination to the review queue, ``--baseline`` compares with an earlier report.

Exit code: 2 on bad input (fact file, --chatbot, flags). With --fail-over or
--fail-on-regression: 1 when the gate fails (or a call failed), else 0. Without them: 1 when any
reply was a hallucination or a call failed, else 0.
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

from guardrail._fs import check_outputs, write_private_text
from guardrail.cli.commands import COMMANDS
from guardrail.cli.options import add_log_flag, configure_logs
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


def _system_prompt(args: argparse.Namespace) -> str | None:
    from guardrail.exceptions import ConfigError

    if args.system_prompt_file is None:
        return args.system_prompt  # type: ignore[no-any-return]
    if args.system_prompt is not None:
        raise ConfigError("give --system-prompt or --system-prompt-file, not both")
    try:
        return Path(args.system_prompt_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--system-prompt-file: cannot read ({exc})") from None


def _chatbot(args: argparse.Namespace) -> Any:
    from guardrail.exceptions import ConfigError
    from guardrail.probe.chatbot import is_model_spec, load_chatbot, model_chatbot

    system = _system_prompt(args)
    if is_model_spec(args.chatbot):
        return model_chatbot(
            args.chatbot,
            system_prompt=system,
            max_tokens=args.chatbot_max_tokens,
            timeout_s=args.chatbot_timeout,
        )
    if system is not None:
        raise ConfigError("--system-prompt applies to a model --chatbot (openai:..., ...)")
    return load_chatbot(args.chatbot)


async def _run_and_close(chatbot: Any, judge: Judge, work: Awaitable[T]) -> T:
    try:
        return await closing(judge, work)
    finally:
        if isinstance(chatbot, ClosableJudge):  # a model chatbot holds an SDK client
            await chatbot.aclose()


def _identity(args: argparse.Namespace) -> str:
    """The chatbot as a progress file records it: a changed system prompt is another bot."""
    import hashlib

    system = _system_prompt(args)
    if system is None:
        return str(args.chatbot)
    return f"{args.chatbot} (system prompt {hashlib.sha256(system.encode()).hexdigest()[:12]})"


def _gate(args: argparse.Namespace) -> bool:
    from guardrail.exceptions import ConfigError

    if args.fail_over is not None and not 0.0 <= args.fail_over <= 1.0:
        raise ConfigError(f"--fail-over must be a rate between 0 and 1, got {args.fail_over}")
    if args.fail_on_regression and args.baseline is None:
        raise ConfigError("--fail-on-regression needs --baseline PREVIOUS.json")
    return args.fail_over is not None or bool(args.fail_on_regression)


def run_probe(args: argparse.Namespace) -> int:
    configure_logs(args, always=False)
    from guardrail.probe.baseline import compare, gate, load_baseline, print_comparison
    from guardrail.probe.extract import TripleExtractor, extractor_judge
    from guardrail.probe.facts import load_facts
    from guardrail.probe.html import render_html
    from guardrail.probe.oracles import THETA
    from guardrail.probe.reasoning import derive
    from guardrail.probe.report import print_tables, report
    from guardrail.probe.run import Prober, check_depth, plan, progress_file

    console = Console()
    check_outputs({"--json-out": args.json_out, "--html-out": args.html_out})
    gated = _gate(args)
    base = load_facts(args.facts)
    previous = load_baseline(args.baseline) if args.baseline is not None else None
    chatbot = _chatbot(args)
    knowledge = derive(base, max_depth=check_depth(args.max_depth))
    asked = plan(
        base, rules=_rules(args.rules), limit=args.limit, knowledge=knowledge, seed=args.seed
    )
    judge = extractor_judge(args.judge)
    prober = Prober(chatbot, TripleExtractor(judge, base.relations), threads=args.jobs > 1)
    progress = None
    if args.progress is not None:
        progress = progress_file(args.progress, _identity(args), judge.name)
    show = not args.no_progress and sys.stderr.isatty()
    work = prober.run(asked, jobs=args.jobs, progress_file=progress, show_progress=show)
    run = asyncio.run(_run_and_close(chatbot, judge, work))
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
        settings={"rules": _rules(args.rules), "limit": args.limit, "seed": args.seed,
                  "jobs": args.jobs, "max_depth": args.max_depth, "theta_nodes": THETA,
                  "theta_edges": THETA, "system_prompt": _system_prompt(args)},
    )  # fmt: skip
    comparison = None
    if previous is not None:
        comparison = compare(previous, run.records, str(args.baseline))
        out["comparison"] = comparison.as_dict()
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
    if comparison is not None:
        print_comparison(console, comparison)
    reasons = gate(
        overall, comparison, fail_over=args.fail_over, fail_on_regression=args.fail_on_regression
    )
    if gated:
        out["gate"] = {"passed": not reasons, "reasons": reasons}
    if args.json_out is not None:
        # reports hold the chatbot's replies: owner-only, like every file of turn text
        write_private_text(
            args.json_out, json.dumps(out, indent=2, ensure_ascii=False) + "\n", "--json-out"
        )
        console.print(f"wrote {args.json_out}")
    if args.html_out is not None:
        write_private_text(args.html_out, render_html(out, run.records), "--html-out")
        console.print(f"wrote {args.html_out}")
    if args.review_db is not None:
        added = _send_to_review(args.review_db, run.records, args.chatbot)
        console.print(f"sent {added} new cases to the review queue 'probe' in {args.review_db}")
    if gated:
        for reason in reasons:
            console.print(f"gate failed: {reason}", markup=False)
        if not reasons:
            console.print("gate passed")
        return 1 if reasons else 0
    return 1 if overall["hallucinations"] or overall["error"] else 0


def run_propose(args: argparse.Namespace) -> int:
    from guardrail.probe.extract import TripleExtractor, extractor_judge
    from guardrail.probe.facts import Catalogue, load_facts
    from guardrail.probe.propose import propose, write_proposal

    console = Console(stderr=True)
    check_outputs({"--out": args.out})
    known = load_facts(args.relations, Catalogue).relations if args.relations else {}
    judge = extractor_judge(args.judge, split_subjects=True)
    proposal = asyncio.run(closing(judge, propose(args.docs, TripleExtractor(judge, known), known)))
    if not proposal.facts:
        console.print(f"no triples found in the {proposal.sentences} sentences of {args.docs}")
        return 1
    write_private_text(
        args.out, write_proposal(proposal, folder=args.docs, judge=judge.name), "--out"
    )
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
        metavar="SPEC",
        help="what to test: an answer function MODULE:FUNCTION or path/file.py:FUNCTION (as "
        "Guard.wrap takes), or a model: openai:MODEL | openai-compatible:MODEL@URL | "
        "anthropic:MODEL",
    )
    p.add_argument(
        "--system-prompt",
        default=None,
        metavar="TEXT",
        help="system prompt sent with every question to a model --chatbot (your bot's own)",
    )
    p.add_argument(
        "--system-prompt-file", default=None, metavar="PATH", help="the system prompt, from a file"
    )
    p.add_argument(
        "--chatbot-max-tokens",
        type=int,
        default=256,
        metavar="N",
        help="reply length cap for a model --chatbot (default: 256)",
    )
    p.add_argument(
        "--chatbot-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="per-question timeout for a model --chatbot (default: 120)",
    )
    p.add_argument(
        "--rules",
        default=None,
        metavar="LIST",
        help="only these rule types, comma-separated: fact, symmetric, inverse, transitive, "
        "declared, composite, negation, closed_world (default: all)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="ask N questions, sampled across rule types (seeded: --seed)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the --limit sample (default: 0)"
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
        "--baseline",
        type=Path,
        default=None,
        metavar="PREVIOUS.json",
        help="compare with an earlier --json-out report: rates then and now per rule type and "
        "relation (95 %% intervals), questions that turned wrong",
    )
    p.add_argument(
        "--fail-over",
        type=float,
        default=None,
        metavar="RATE",
        help="exit 1 when the hallucination rate (or the share of replies without a verdict) "
        "is above RATE (0-1), else 0",
    )
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a rate rose significantly against --baseline (95 %%), else 0",
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (default: on a terminal)"
    )
    add_log_flag(p)
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
