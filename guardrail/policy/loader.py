"""Read policy YAML into a validated :class:`~guardrail.policy.schema.Policy`.

Every failure becomes one :class:`~guardrail.exceptions.PolicyError` whose message fits on one
line: the file, the key path (``topics[2].on_flag.escalate.queue``) and the problem, with the
line number when the YAML has one. Reviewers edit these files by hand, so the loader also
rejects what PyYAML silently accepts: duplicate keys (the last one would win unnoticed).
"""

from __future__ import annotations

import difflib
import re
import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from guardrail.exceptions import ConfigError, PolicyError
from guardrail.policy.schema import RULE_ERROR, Policy
from guardrail.safe_load import YamlLimitError, load_yaml_document
from guardrail.scoring.registry import load_named_method
from guardrail.scoring.settings import SETTINGS

Loc = tuple[str | int, ...]

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

#: Largest policy file read, in bytes (real policies are a few KiB).
MAX_POLICY_BYTES = 1_000_000
#: Most YAML nodes a policy may hold once its aliases are expanded: YAML aliases can make a
#: few hundred bytes describe billions of nodes (the "billion laughs"), which would take
#: minutes and gigabytes to walk and validate.
MAX_POLICY_NODES = 100_000


def load_policy(
    path: str | Path,
    *,
    max_bytes: int = MAX_POLICY_BYTES,
    max_nodes: int = MAX_POLICY_NODES,
) -> Policy:
    """Load and validate the policy file at ``path`` (see the limits above)."""
    p = Path(path)
    name = str(p)
    try:
        if p.is_file() and p.stat().st_size > max_bytes:
            raise PolicyError(name, "", f"file is larger than {max_bytes} bytes")
        with p.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise PolicyError(name, "", f"file is larger than {max_bytes} bytes")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise PolicyError(name, "", "file not found") from None
    except IsADirectoryError:
        raise PolicyError(name, "", "is a directory, not a policy file") from None
    except UnicodeDecodeError as exc:
        raise PolicyError(name, "", f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise PolicyError(name, "", f"cannot read file: {exc.strerror or exc}") from None
    return parse_policy(text, name, max_bytes=max_bytes, max_nodes=max_nodes)


def parse_policy(
    text: str,
    source: str = "<string>",
    *,
    max_bytes: int = MAX_POLICY_BYTES,
    max_nodes: int = MAX_POLICY_NODES,
) -> Policy:
    """Validate policy YAML given as text; ``source`` names it in error messages."""
    if len(text) > max_bytes:
        raise PolicyError(source, "", f"text is longer than {max_bytes} characters")
    data, lines = _read_yaml(text, source, max_nodes)
    if data is None:
        raise PolicyError(source, "", "the file is empty; expected a policy mapping")
    if not isinstance(data, dict):
        raise PolicyError(
            source, "", f"expected a mapping at the top level, got {type(data).__name__}"
        )
    try:
        load_named_method(data)  # a plug-in scorer is imported only once a policy names it
    except ConfigError as exc:
        raise PolicyError(source, "scorer.method", str(exc)) from None
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        raise _to_policy_error(exc, source, lines) from None


def format_key_path(loc: Loc) -> str:
    """``("topics", 2, "on_flag")`` -> ``topics[2].on_flag``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_key_path(path: str) -> Loc:
    """The inverse of :func:`format_key_path`."""
    return tuple(int(index) if index else key for key, index in _PATH_PART.findall(path))


# -- YAML -------------------------------------------------------------------------------------


def _read_yaml(text: str, source: str, max_nodes: int) -> tuple[Any, dict[Loc, int]]:
    """Parse ``text`` with the bounded loader; return the data and the line of every key path."""
    try:
        node, data = load_yaml_document(text, max_nodes=max_nodes)
    except YamlLimitError as exc:
        raise PolicyError(source, "", f"the YAML {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise PolicyError(source, "", f"YAML syntax error{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise PolicyError(source, "", f"YAML syntax error: {exc}") from None
    lines: dict[Loc, int] = {}
    if node is not None:
        _index_lines(node, (), lines, source)
    return data, lines


def _index_lines(node: yaml.Node, loc: Loc, lines: dict[Loc, int], source: str) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
                continue
            key, line = key_node.value, key_node.start_mark.line + 1
            if key in seen:
                raise PolicyError(
                    source,
                    format_key_path((*loc, key)),
                    f"duplicate key at line {line} (first at line {seen[key]})",
                )
            seen[key] = line
            child: Loc = (*loc, key)
            lines[child] = line
            _index_lines(value_node, child, lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = (*loc, i)
            lines[child] = item.start_mark.line + 1
            _index_lines(item, child, lines, source)


# -- validation errors -> PolicyError -----------------------------------------------------------


def _to_policy_error(exc: ValidationError, source: str, lines: dict[Loc, int]) -> PolicyError:
    # An unknown key is usually a typo that also makes a required key "missing"; the unknown
    # key (with its did-you-mean) is the more useful message, so it goes first.
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
    described = [_describe(e) for e in errors]
    loc, problem = described[0]
    line = _line_for(loc, lines)
    if line is not None:
        problem += f" (line {line})"
    others = [format_key_path(other) for other, _ in described[1:]]
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        problem += f" (+{len(others)} more: {shown})"
    return PolicyError(source, format_key_path(loc), problem)


def _untagged(loc: Loc) -> Loc:
    """``loc`` without the scorer method pydantic puts in (``scorer.rt4chart.window``)."""
    if len(loc) > 1 and loc[0] == "scorer" and loc[1] in SETTINGS:
        return loc[:1] + loc[2:]
    return loc


def _describe(error: ErrorDetails) -> tuple[Loc, str]:
    tagged: Loc = tuple(error["loc"])
    loc = _untagged(tagged)
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == RULE_ERROR:
        return loc + parse_key_path(str(ctx["path"])), str(ctx["problem"])
    if kind == "extra_forbidden":
        if loc == ("scorer", "threshold"):
            return loc, "unknown key; thresholds are set per topic (topics[].threshold)"
        if tagged != loc:  # a key of the other scoring method?
            method, key = tagged[1], loc[-1]
            owners = [m for m, model in SETTINGS.items() if key in model.model_fields]
            if len(loc) == 2 and owners:
                return loc, f"not a setting of method {method!r} (only of {', '.join(owners)})"
        return loc, _unknown_key_problem(tagged)
    if kind == "missing":
        return loc, "required key is missing"
    if kind == "unknown_method":
        given = error["input"].get("method") if isinstance(error["input"], dict) else None
        expected = ", ".join(SETTINGS)
        return (*loc, "method"), f"unknown scorer method {given!r}; expected: {expected}"
    message = error["msg"].removeprefix("Value error, ")
    if kind != "value_error" and "input" in error:
        shown = repr(error["input"])
        message += f", got {shown if len(shown) <= 60 else shown[:57] + '...'}"
    return loc, message


def _unknown_key_problem(loc: Loc) -> str:
    allowed = _allowed_keys(loc[:-1])
    if not allowed:
        return "unknown key"
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    if close:
        return f"unknown key; did you mean {close[0]!r}?"
    return f"unknown key; expected one of: {', '.join(allowed)}"


def _allowed_keys(loc: Loc) -> list[str]:
    """The field names of the model found at ``loc`` (walking the schema, not the data)."""
    model: type[BaseModel] | None = Policy
    for i, part in enumerate(loc):
        if i == 1 and loc[0] == "scorer" and part in SETTINGS:
            model = SETTINGS[str(part)]  # the scorer block's model, chosen by its method
            continue
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(part)
        model = _model_in(field.annotation) if field is not None else None
    return list(model.model_fields) if model is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """Unwrap ``list[X]`` and ``X | None`` to the model class X, if there is one."""
    origin = get_origin(annotation)
    if origin in (list, Union, types.UnionType):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _line_for(loc: Loc, lines: dict[Loc, int]) -> int | None:
    """The line of ``loc`` or of its nearest ancestor present in the file."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None
