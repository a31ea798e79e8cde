"""``guardrail check``: score one answer against its retrieved context.

Any text argument may be ``@path`` to read it from a file (``@@...`` for a literal leading @).
Human output shows the response score, each factoid with its score and verdicts, and the
answer with flagged spans highlighted; ``--json`` prints the full result.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.registry import SPEC_HELP, make_judge
from guardrail.models import ScoreReport
from guardrail.scoring.metarag import MetaRAG, MetaRAGConfig


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
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="score one answer against its retrieved context",
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
    p.add_argument("--judge", default="local", help=f"judge spec: {SPEC_HELP} (default: local)")
    p.add_argument("--k", type=int, default=None, help="variants per relation (default 2)")
    p.add_argument("--threshold", type=float, default=None, help="flag when score >= this")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.set_defaults(func=run)


def _build_scorer(args: argparse.Namespace) -> MetaRAG:
    settings: dict[str, Any] = {}
    if args.k is not None:
        settings["k"] = args.k
    if args.threshold is not None:
        settings["threshold"] = args.threshold
    try:
        config = MetaRAGConfig(**settings)
    except ValueError as exc:
        first = exc.errors()[0] if hasattr(exc, "errors") else {"msg": str(exc), "loc": ()}
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ConfigError(f"--{where}: {first['msg']}") from None
    return MetaRAG(make_judge(args.judge), config=config)


def run(args: argparse.Namespace) -> int:
    question = read_text_arg(args.question)
    answer = read_text_arg(args.answer)
    contexts = [read_text_arg(c) for c in args.context]
    scorer = _build_scorer(args)
    report = scorer.score_sync(question, answer, contexts)
    if args.json:
        print(json.dumps(report_json(report), ensure_ascii=False, indent=2))
    else:
        from guardrail.render import print_report

        print_report(report, answer)
    return 0


def report_json(report: ScoreReport) -> dict[str, Any]:
    """The JSON shape of ``check --json``: the report, with ``score`` and ``flagged`` first."""
    data = report.model_dump(mode="json")
    return {"score": data.pop("score"), "flagged": data.pop("flagged"), **data}
