"""The ``guardrail`` command line.

Each subcommand lives in its own module with ``register(subparsers)``, which adds a parser and
sets ``func`` — a callable ``(args) -> int`` returning the exit code. Errors are one line on
stderr, no traceback: :class:`~guardrail.exceptions.ConfigError` (bad input) exits 2, any other
:class:`~guardrail.exceptions.GuardrailError` exits 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from guardrail.exceptions import ConfigError, GuardrailError

#: Subcommand modules, registered in this order.
COMMANDS: list[str] = [
    "guardrail.cli.check",
    "guardrail.cli.audit",
    "guardrail.cli.policy",
    "guardrail.cli.review",
    "guardrail.cli.serve",
    "guardrail.cli.eval",
    "guardrail.cli.calibrate",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="guardrail",
        description="Hallucination guardrail for RAG answers: score, apply policies, audit.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except ConfigError as exc:
        print(f"guardrail: error: {exc}", file=sys.stderr)
        return 2
    except GuardrailError as exc:
        print(f"guardrail: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("guardrail: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
