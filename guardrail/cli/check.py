"""``guardrail check``: score one answer against its retrieved context.

Any text argument may be ``@path`` to read it from a file (``@@...`` for a literal leading @).
Human output shows the response score, each factoid with its score and verdicts, and the
answer with flagged spans highlighted; ``--json`` prints the full result.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from guardrail.cli.commands import COMMANDS
from guardrail.cli.options import (
    add_cost_flags,
    add_judge_flags,
    add_response_cache_flag,
    judge_overrides,
)
from guardrail.exceptions import ConfigError
from guardrail.judges.registry import spec_capabilities
from guardrail.models import ScoreReport
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_REVIEW_DB, fallback_beside
from guardrail.sanitize import require_clean
from guardrail.scoring.base import ScorerBase
from guardrail.scoring.factory import build_scorer, judge_for
from guardrail.scoring.settings import (
    DEFAULT_THRESHOLD,
    MetaRAGSettings,
    check_flag_threshold,
    with_overrides,
)


def read_text_arg(value: str) -> str:
    """Return ``value``, or the contents of the file it names when it starts with ``@``."""
    if value.startswith("@@"):
        return value[1:]
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"cannot read {path}: not UTF-8 text") from None
    return require_clean(value, "argument")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help=COMMANDS["check"].summary,
        description="Score one answer with MetaRAG. Text arguments accept @FILE.",
    )
    p.add_argument("--question", "-q", default="", help="the user's question (or @FILE)")
    p.add_argument("--answer", "-a", required=True, help="the answer to check (or @FILE)")
    p.add_argument(
        "--context",
        "-c",
        action="append",
        default=[],
        help="a retrieved passage (or @FILE); repeat for several",
    )
    add_judge_flags(p, judge_default="the policy's judge, else local")
    p.add_argument("--k", type=int, default=None, help="variants per relation (default 2)")
    add_cost_flags(p, default_note="default: paper")
    add_response_cache_flag(p)
    p.add_argument("--threshold", type=float, default=None, help="flag when score >= this")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument(
        "--fail-on-flag",
        action="store_true",
        help="exit 1 when the answer is flagged, or could not be scored (for CI gates)",
    )
    p.add_argument(
        "--policy",
        default=None,
        help="apply a YAML policy: topics, threshold, actions (escalations go to --review-db)",
    )
    p.add_argument(
        "--audit-log",
        default=None,
        metavar="PATH|URL",
        help="with --policy, append the turn's audit record here "
        f"(default: {DEFAULT_AUDIT_LOG}, the log `serve` and `review` use)",
    )
    p.add_argument(
        "--review-db",
        default=DEFAULT_REVIEW_DB,
        help="SQLite review queue for escalations with --policy (default: %(default)s)",
    )
    p.set_defaults(func=run)


def _build_scorer(args: argparse.Namespace) -> ScorerBase:
    """MetaRAG with the default settings, overridden by the flags."""
    cache = None if args.response_cache is None else str(args.response_cache)
    settings = with_overrides(
        MetaRAGSettings(),
        {
            **judge_overrides(args),
            "k": ("--k", args.k),
            "response_cache": ("--response-cache", cache),
            "protocol": ("--protocol", args.protocol),
            "cascade": ("--cascade", args.cascade),
        },
    )
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    return build_scorer(settings, threshold=check_flag_threshold(threshold))


def require_key(spec: str | None) -> None:
    """Fail at once, naming the variable, when ``--judge`` names a hosted API whose key is not
    set (rather than after the first judge call). The judge's registered capabilities name the
    variables; one that points it at a server that may need no key (``OPENAI_BASE_URL``)
    lifts the check."""
    if not spec:
        return
    capabilities = spec_capabilities(spec)
    names = capabilities.key_env
    if not names or any(os.environ.get(n) for n in names):
        return
    lifted = capabilities.key_optional_with
    if lifted and os.environ.get(lifted):
        return
    raise ConfigError(
        f"--judge {spec}: {names[0]} is not set; export it (export {names[0]}=...) "
        "or use --judge local"
    )


def run(args: argparse.Namespace) -> int:
    require_key(args.judge)
    question = read_text_arg(args.question)
    answer = read_text_arg(args.answer)
    contexts = [read_text_arg(c) for c in args.context]
    if args.policy:
        return _run_policy(args, question, answer, contexts)
    if args.audit_log:
        raise ConfigError("--audit-log needs --policy (the audit record names the policy)")
    report = _build_scorer(args).score_sync(question, answer, contexts)
    if args.json:
        print(json.dumps(report_json(report), ensure_ascii=False, indent=2))
    else:
        from guardrail.render import print_report

        print_report(report, answer)
        print_resolution(report, answer)
    return 1 if args.fail_on_flag and report.flagged else 0


def _run_policy(args: argparse.Namespace, question: str, answer: str, contexts: list[str]) -> int:
    from guardrail.guard import Guard
    from guardrail.policy import load_policy

    given = (args.k, args.threshold, args.response_cache, args.protocol, args.cascade)
    if any(value is not None for value in given):
        raise ConfigError(
            "--k, --threshold, --protocol, --cascade and --response-cache come from the policy "
            "when --policy is given"
        )
    policy = load_policy(args.policy)
    deadlines = {k: v for k, v in judge_overrides(args).items() if k != "judge"}
    scorer = with_overrides(policy.scorer, deadlines)
    if scorer != policy.scorer:
        policy = policy.model_copy(update={"scorer": scorer})
    guard = Guard.from_yaml(
        policy,
        judge=judge_for(policy.scorer, args.judge) if args.judge else None,
        audit_log=args.audit_log or DEFAULT_AUDIT_LOG,
        review_db=args.review_db,
        fallback_log=fallback_beside(args.review_db),
    )
    from guardrail.turn import FIXED_ANSWER

    result = guard.check(question, answer, contexts, driver=FIXED_ANSWER)
    if args.json:
        data: dict[str, Any] = (
            report_json(result.report) if result.report else {"score": None, "flagged": None}
        )
        data.update(
            topics=[t.model_dump(mode="json") for t in result.topics],
            decision=result.decision.model_dump(mode="json"),
            audit_id=result.audit_id,
            final_answer=result.answer,
            citations=[c.model_dump(mode="json") for c in result.citations],
        )
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        from guardrail.render import print_decision, print_report

        if result.report is not None:
            print_report(result.report, result.report_text)
            print_resolution(result.report, result.report_text)
        print_decision(result)
    # A gate fails closed: an answer that could not be scored does not pass it either.
    failed = result.decision.flagged or result.report is None
    return 1 if args.fail_on_flag and failed else 0


def print_resolution(report: ScoreReport, answer: str) -> None:
    """The statements the answer was read as, with its question (none: nothing printed)."""
    if not report.resolved:
        return
    import shutil
    import textwrap

    width = max(40, shutil.get_terminal_size().columns)
    print("Read with the question (the statements checked):")
    for statement in report.resolved:
        words = " ".join(answer[s:e] for s, e in statement.spans)
        line = f"{words!r} -> {statement.text}  [{statement.rule}]"
        print(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="    "))


def report_json(report: ScoreReport) -> dict[str, Any]:
    """The JSON shape of ``check --json``: the report, with ``score`` and ``flagged`` first."""
    data = report.model_dump(mode="json")
    return {"score": data.pop("score"), "flagged": data.pop("flagged"), **data}
