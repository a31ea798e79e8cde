"""Pick a flagging threshold on labelled rows and write it into a copy of a policy file.

The threshold maximizes a metric (F1, precision or recall) over the rows given, so any figure
measured on those same rows is optimistic: the output says so (``tuned_on_same_rows``). To get
an honest figure, tune on one part of the data and report on another
(:func:`~guardrail.evaluation.datasets.split_by_group` keeps each source document on one side).

The policy is edited as YAML text: ``topics`` is a list of mappings with a ``name`` (the only
form the policy loader accepts) and each chosen topic's ``threshold`` value is replaced in place
(or a ``threshold:`` line added after the topic's first one-line key), so comments, key order
and formatting survive; a comment saying where the threshold came from goes on top (after a
``yaml-language-server`` modeline). If the edited text would not load to exactly the intended
document (exotic YAML: anchors, flow-style topics without a threshold), the policy is
re-dumped instead and its comments are lost. The result is validated with the policy loader
before it is written: an input that is not a valid policy writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from guardrail._fs import write_output_text
from guardrail.exceptions import ConfigError, PolicyError
from guardrail.policy.loader import parse_policy

ALL_TOPICS = "*"


def _topic_entries(doc: Any, file: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(doc, dict):
        raise PolicyError(file, "", "expected a mapping at the top level")
    topics = doc.get("topics")
    if not isinstance(topics, list):
        raise PolicyError(file, "topics", "missing, or not a list of topics")
    entries: list[tuple[str, dict[str, Any]]] = []
    for i, item in enumerate(topics):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise PolicyError(file, f"topics[{i}]", "expected a mapping with a 'name'")
        entries.append((item["name"], item))
    if not entries:
        raise PolicyError(file, "topics", "no topics to set a threshold on")
    return entries


_Edit = tuple[int, int, str]  # replace text[start:end] with the string


def _topic_nodes(root: yaml.Node | None) -> dict[str, yaml.MappingNode]:
    """Each topic's mapping node, by topic name (as :func:`_topic_entries` reads them)."""
    if not isinstance(root, yaml.MappingNode):
        return {}
    topics = next((v for k, v in root.value if k.value == "topics"), None)
    out: dict[str, yaml.MappingNode] = {}
    for item in topics.value if isinstance(topics, yaml.SequenceNode) else []:
        if isinstance(item, yaml.MappingNode):
            name = next((v.value for k, v in item.value if k.value == "name"), None)
            if isinstance(name, str):
                out[name] = item
    return out


def _threshold_edit(text: str, node: yaml.MappingNode, value: str) -> _Edit | None:
    """Replace the mapping's ``threshold`` value, or add one after its first one-line key."""
    for key, val in node.value:
        if key.value == "threshold" and isinstance(val, yaml.ScalarNode):
            return val.start_mark.index, val.end_mark.index, value
    if node.flow_style:
        return None
    for key, val in node.value:
        one_line = val.start_mark.line == val.end_mark.line == key.start_mark.line
        if isinstance(val, yaml.ScalarNode) and val.style in (None, "'", '"') and one_line:
            eol = text.find("\n", val.end_mark.index)
            at = len(text) if eol < 0 else eol
            return at, at, "\n" + " " * key.start_mark.column + f"threshold: {value}"
    return None


def _number(value: float) -> str:
    """A YAML float literal without exponent (PyYAML reads ``1e-05`` as a string)."""
    digits = f"{value:.6f}".rstrip("0")
    return digits + "0" if digits.endswith(".") else digits


def _edited_text(text: str, names: list[str], value: float, expected: Any) -> str | None:
    """``text`` with the named topics' thresholds set, if that loads exactly to ``expected``."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    nodes = _topic_nodes(root)
    edits: list[_Edit] = []
    for name in names:
        edit = _threshold_edit(text, nodes[name], _number(value)) if name in nodes else None
        if edit is None:
            return None
        edits.append(edit)
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    try:
        same = yaml.safe_load(text) == expected
    except yaml.YAMLError:
        return None
    return text if same else None


def _with_note(text: str, note: str) -> str:
    header = "".join(f"# {line}\n" for line in note.splitlines() if line.strip())
    first, newline, rest = text.partition("\n")
    if first.startswith("# yaml-language-server:"):
        return first + newline + header + rest
    return header + text


def write_policy_threshold(
    policy: str | Path,
    out: str | Path,
    threshold: float,
    *,
    topic: str | None = None,
    note: str = "",
) -> list[str]:
    """Copy ``policy`` to ``out`` with ``topics[].threshold`` set; returns the topics changed.

    ``topic=None`` is allowed only when the policy has exactly one topic; ``"*"`` sets all.
    """
    src, dst = Path(policy), Path(out)
    if src.resolve() == dst.resolve():
        raise ConfigError("--out must differ from --policy (the input is never overwritten)")
    try:
        original = src.read_text(encoding="utf-8")
        doc = yaml.safe_load(original)
    except OSError as exc:
        raise ConfigError(f"{src}: cannot read policy ({exc.strerror or exc})") from exc
    except yaml.YAMLError as exc:
        raise PolicyError(str(src), "", f"not valid YAML ({exc})") from exc
    entries = _topic_entries(doc, str(src))
    names = [n for n, _ in entries]
    if topic is None:
        if len(entries) != 1:
            raise ConfigError(
                f"{src} has {len(entries)} topics ({', '.join(names)}); pass --topic NAME "
                f"or --topic '{ALL_TOPICS}'"
            )
        chosen = entries
    elif topic == ALL_TOPICS:
        chosen = entries
    else:
        chosen = [(n, item) for n, item in entries if n == topic]
        if not chosen:
            raise ConfigError(f"{src} has no topic {topic!r}; topics: {', '.join(names)}")
    value = round(float(threshold), 6)
    for _, item in chosen:
        item["threshold"] = value
    body = _edited_text(original, [n for n, _ in chosen], value, doc)
    if body is None:
        body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    text = _with_note(body, note)
    parse_policy(text, source=str(dst))  # the copy must load as a policy, or nothing is written
    write_output_text(dst, text, "calibrated policy")
    return [n for n, _ in chosen]
