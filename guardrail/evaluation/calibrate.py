"""Pick a flagging threshold on labelled rows and write it into a copy of a policy file.

The threshold maximizes a metric (F1, precision or recall) over the rows given, so any figure
measured on those same rows is optimistic: the output says so (``tuned_on_same_rows``). To get
an honest figure, tune on one part of the data and report on another
(:func:`~guardrail.evaluation.datasets.split_by_group` keeps each source document on one side).

The policy is edited as plain YAML: ``topics`` is a list of mappings with a ``name`` (or a
mapping from topic name to its settings) and each chosen topic's ``threshold`` is set. Other
keys and their order are kept; comments are not (PyYAML does not keep them), so the output
starts with a comment saying where the threshold came from. The result is validated with the
policy loader before it is written: an input that is not a valid policy writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from guardrail.exceptions import ConfigError, PolicyError
from guardrail.policy.loader import parse_policy

ALL_TOPICS = "*"


def _topic_entries(doc: Any, file: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(doc, dict):
        raise PolicyError(file, "", "expected a mapping at the top level")
    topics = doc.get("topics")
    entries: list[tuple[str, dict[str, Any]]] = []
    if isinstance(topics, list):
        for i, item in enumerate(topics):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise PolicyError(file, f"topics[{i}]", "expected a mapping with a 'name'")
            entries.append((item["name"], item))
    elif isinstance(topics, dict):
        for name, item in topics.items():
            if not isinstance(item, dict):
                raise PolicyError(file, f"topics.{name}", "expected a mapping")
            entries.append((str(name), item))
    else:
        raise PolicyError(file, "topics", "missing, or not a list of topics")
    if not entries:
        raise PolicyError(file, "topics", "no topics to set a threshold on")
    return entries


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
        doc = yaml.safe_load(src.read_text(encoding="utf-8"))
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
    for _, item in chosen:
        item["threshold"] = round(float(threshold), 6)
    header = "".join(f"# {line}\n" for line in note.splitlines() if line.strip())
    text = header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    parse_policy(text, source=str(dst))  # the copy must load as a policy, or nothing is written
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(text, encoding="utf-8")
    return [n for n, _ in chosen]
