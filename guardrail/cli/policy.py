"""``guardrail policy validate PATH``, ``guardrail policy init [NAME]`` and
``guardrail schema [--out FILE]``.

``validate`` is meant for CI and pre-commit hooks: exit 0 and a one-line summary with the
content hash (the value audit records carry), or the one-line
:class:`~guardrail.exceptions.PolicyError` and exit 2. ``init`` copies a policy that ships in
the package (and the schema it refers to) into ``policies/``, so an install without a clone
runs the documentation's commands as written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from guardrail._fs import check_outputs, write_output_text
from guardrail.cli.commands import COMMANDS
from guardrail.exceptions import ConfigError
from guardrail.policy import Policy, load_policy


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    policy = sub.add_parser("policy", help=COMMANDS["policy"].summary)
    policy_sub = policy.add_subparsers(dest="policy_command", metavar="SUBCOMMAND")
    policy_sub.required = True
    validate = policy_sub.add_parser("validate", help="check a policy file; print its hash")
    validate.add_argument("path", metavar="PATH", help="policy YAML file")
    validate.set_defaults(func=_validate)
    init = policy_sub.add_parser(
        "init", help="copy a shipped policy and its JSON Schema into a folder (default policies/)"
    )
    init.add_argument("name", nargs="?", default="default", help="default, finance or legal-aid")
    init.add_argument("--dir", default="policies", metavar="DIR", help="where to write them")
    init.add_argument("--force", action="store_true", help="replace files that exist")
    init.set_defaults(func=_init)

    schema = sub.add_parser("schema", help=COMMANDS["schema"].summary)
    schema.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    schema.set_defaults(func=_schema)


def schema_text() -> str:
    """The schema exactly as ``policies/policy.schema.json`` stores it."""
    return json.dumps(Policy.json_schema(), indent=2, ensure_ascii=False) + "\n"


def _validate(args: argparse.Namespace) -> int:
    policy = load_policy(args.path)
    print(f"OK: {policy.name} ({len(policy.topics)} topics) sha256={policy.content_hash}")
    return 0


def _init(args: argparse.Namespace) -> int:
    from guardrail.policy.shipped import SCHEMA_FILE, shipped_file_text, shipped_policy_text

    files = {f"{args.name}.yaml": shipped_policy_text(args.name)}
    files[SCHEMA_FILE] = shipped_file_text(SCHEMA_FILE)
    folder = Path(args.dir)
    for name, text in files.items():  # a file that already holds the same text is kept
        path = folder / name
        if path.exists() and not args.force and path.read_bytes() != text.encode():
            raise ConfigError(f"{path} exists and differs; --force replaces it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write into {folder}: {exc.strerror or exc}") from None
    print(f"wrote {folder / f'{args.name}.yaml'} and {folder / SCHEMA_FILE}")
    return 0


def _schema(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_outputs({"--out": args.out})
    text = schema_text()
    if args.out is None:
        sys.stdout.write(text)
        return 0
    write_output_text(Path(args.out), text, "--out")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0
