"""The ``guardrail`` command line.

Each subcommand lives in its own module with ``register(subparsers)``, which adds a parser and
sets ``func`` — a callable ``(args) -> int`` returning the exit code.
:data:`~guardrail.cli.commands.COMMANDS` names the module and one-line summary of each:
``guardrail --help`` reads only that table, and a module (with what it imports) loads only
when its command runs or shows its own help.

Errors are one line on stderr, no traceback: :class:`~guardrail.exceptions.ConfigError` (bad
input) and any pydantic ``ValidationError`` that reaches here (bad input too) exit 2, any other
:class:`~guardrail.exceptions.GuardrailError` exits 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError, GuardrailError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """A parser for ``argv``: the full parser of the command it names, a summary line for the rest.

    The top-level parser has no option that takes a value, so the command is the first word
    of ``argv`` that is not an option.
    """
    named = next((word for word in argv if not word.startswith("-")), None)
    wanted = COMMANDS[named].module if named in COMMANDS else None
    from guardrail._version import __version__

    parser = _Parser(
        prog="guardrail",
        description="Hallucination guardrail for RAG answers: score, apply policies, audit.",
        epilog="Run 'guardrail COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"guardrail {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    registered: set[str] = set()
    for name, command in COMMANDS.items():
        if command.module != wanted:
            sub.add_parser(name, help=command.summary)
        elif command.module not in registered:  # one module may add several commands
            importlib.import_module(command.module).register(sub)
            registered.add(command.module)
    return parser


def _validation_line(exc: BaseException) -> str | None:
    """One line for a pydantic ``ValidationError`` (pydantic is loaded only if one can exist)."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(exc, pydantic.ValidationError):
        return None
    from guardrail.validation import error_line

    return f"{exc.title}: {error_line(exc)}"


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words)
    if not words:  # a bare `guardrail`: the usage and the commands, not one error line
        parser.print_help()
        return 2
    args = parser.parse_args(words)
    args.argv = words  # the command line as given (guardrail serve --workers re-reads it)
    try:
        code: int = args.func(args)
    except ConfigError as exc:
        print(f"guardrail: error: {exc}", file=sys.stderr)
        return 2
    except GuardrailError as exc:
        print(f"guardrail: error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        line = _validation_line(exc)
        if line is None:
            raise
        print(f"guardrail: error: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("guardrail: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
