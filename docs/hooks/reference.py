"""MkDocs hook: the CLI and policy-schema reference pages, generated at build time.

A page that holds the line ``<!-- generated: cli -->`` gets one section per ``guardrail``
command, read from the argparse parsers that :func:`guardrail.cli.build_parser` builds (so the
reference cannot drift from ``--help``); ``<!-- generated: policy-schema -->`` gets one table per
object of the policy JSON Schema (:meth:`guardrail.policy.Policy.json_schema`, the schema
``guardrail schema`` prints). ``python docs/hooks/reference.py cli|policy-schema`` prints the
generated Markdown. It also drops the Sphinx roles (``:class:``, ``:meth:`` ...) that the
docstrings use and mkdocstrings would print as text.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

CLI_MARK = "<!-- generated: cli -->"
SCHEMA_MARK = "<!-- generated: policy-schema -->"


# -- CLI ---------------------------------------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help_of(parser: argparse.ArgumentParser, name: str) -> str:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            names = ", ".join(f"`{o}`" for o in action.option_strings)
            if action.nargs != 0:
                metavar = action.metavar or action.dest.upper()
                names += f" *{metavar}*"
        else:
            names = f"*{action.metavar or action.dest}*"
        help_text = (action.help or "").replace("%(default)s", str(action.default))
        help_text = help_text.replace("|", "\\|").replace("\n", " ")
        if action.choices and not isinstance(action.choices, dict):
            help_text += f" (one of: {', '.join(str(c) for c in action.choices)})"
        if action.required and action.option_strings:
            help_text += " (required)"
        rows.append(f"| {names.replace('|', '&#124;')} | {help_text} |")  # metavars: PATH|URL
    return rows


def _command_section(
    path: str, parser: argparse.ArgumentParser, summary: str, level: int, *, children: bool = True
) -> str:
    out = [f"{'#' * level} `{path}`", ""]
    text = parser.description or summary
    if text:
        out += [text.strip(), ""]
    usage = parser.format_usage().strip().removeprefix("usage: ")
    out += ["```text", usage, "```", ""]
    rows = _option_rows(parser)
    if rows:
        out += ["| option | meaning |", "|---|---|", *rows, ""]
    for name, child in _subparsers(parser).items() if children else ():
        out.append(_command_section(f"{path} {name}", child, _help_of(parser, name), level + 1))
    return "\n".join(out)


def cli_markdown() -> str:
    """One section per command (and sub-command), from the parsers themselves."""
    from guardrail.cli import build_parser
    from guardrail.cli.commands import COMMANDS

    top = build_parser([])
    out = [_command_section("guardrail", top, top.description or "", 2, children=False)]
    out += ["| command | what it does |", "|---|---|"]
    out += [f"| [`{n}`](#guardrail-{n}) | {c.summary} |" for n, c in COMMANDS.items()]
    out.append("")
    for name, command in COMMANDS.items():
        parser = _subparsers(build_parser([name]))[name]
        out.append(_command_section(f"guardrail {name}", parser, command.summary, 2))
    return "\n".join(out)


# -- policy schema -----------------------------------------------------------------------------


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    for key in ("oneOf", "anyOf"):
        if key in prop:
            return " or ".join(_type_of(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type_of(prop.get('items', {}))}"
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    return str(kind)


def _bounds(prop: dict[str, Any]) -> str:
    parts = []
    for key, sign in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="),
                      ("exclusiveMaximum", "<"), ("minLength", "length >="),
                      ("minItems", "items >=")):  # fmt: skip
        if key in prop:
            parts.append(f"{sign} {prop[key]}")
    if "pattern" in prop:
        parts.append(f"matches `{prop['pattern']}`")
    return ", ".join(parts)


def _object_table(name: str, obj: dict[str, Any], level: int) -> str:
    out = [f"{'#' * level} {name}", ""]
    if obj.get("description"):
        out += [obj["description"].strip(), ""]
    required = set(obj.get("required", []))
    out += ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, prop in obj.get("properties", {}).items():
        default = "required" if key in required else json.dumps(prop.get("default"))
        meaning = prop.get("description", "")
        bounds = _bounds(prop)
        if bounds:
            meaning = f"{meaning} ({bounds})" if meaning else bounds
        cells = [f"`{key}`", _type_of(prop), f"`{default}`" if default != "required" else default,
                 meaning.replace("|", "\\|").replace("\n", " ")]  # fmt: skip
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def schema_markdown() -> str:
    """The policy file's top level, then each object it refers to, one table each."""
    from guardrail.policy import Policy

    schema = Policy.json_schema()
    parts = [_object_table("Policy (the file)", schema, 2)]
    for name, obj in sorted(schema.get("$defs", {}).items()):
        parts.append(_object_table(name, obj, 2))
    return "\n".join(parts)


# -- the hook ----------------------------------------------------------------------------------


#: Sphinx roles in docstrings (``:class:`X```) that mkdocstrings leaves as text before the code.
_ROLE = re.compile(r":(?:meth|class|func|data|attr|mod|exc|obj):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    return _ROLE.sub("", html)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_markdown())
    if SCHEMA_MARK in markdown:
        markdown = markdown.replace(SCHEMA_MARK, schema_markdown())
    return markdown


if __name__ == "__main__":  # pragma: no cover
    print(cli_markdown() if sys.argv[1:] == ["cli"] else schema_markdown())
