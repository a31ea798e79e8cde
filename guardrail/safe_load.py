"""The one way guardrail reads YAML and JSON it did not write: bounded in size, depth and
alias expansion, failing with one line instead of a traceback or minutes of work.

* :func:`load_yaml_document` — PyYAML's safe loader, plus three limits PyYAML does not have:
  the text's size, the nesting depth, and the number of nodes once aliases are expanded (a
  3.5 KB file of nested aliases — the "billion laughs" — otherwise stands for billions of nodes
  and takes minutes and gigabytes to build). It returns the composed node tree too, so callers
  can point error messages at line numbers. Policies and probe fact files are read with it.
* :func:`loads_json` — :func:`json.loads` that reports nesting too deep for the parser (which
  raises ``RecursionError``) as a :class:`json.JSONDecodeError`, so every caller that already
  turns bad JSON into a one-line error covers deep nesting too. Datasets, chat logs, progress
  and resume files and fact files in JSON Lines are read with it.

Both raise subclasses of the errors their callers already handle (``yaml.YAMLError``,
``json.JSONDecodeError``); the limits are keyword arguments with the defaults below.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import yaml

__all__ = [
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "YamlLimitError",
    "load_yaml_document",
    "loads_json",
]

#: Largest YAML text read, in characters (policies and fact files are a few KiB to a few MiB).
MAX_YAML_BYTES = 10_000_000
#: Deepest nesting of mappings and sequences (hand-written files nest a handful of levels).
MAX_YAML_DEPTH = 100
#: Most nodes once aliases are expanded.
MAX_YAML_NODES = 1_000_000

_SIZE_CAP = 10**12


class YamlLimitError(yaml.YAMLError):
    """A YAML text over one of the limits; ``problem`` is the one-line reason."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None
        self.context = None
        self.context_mark = None


def load_yaml_document(
    text: str,
    *,
    max_bytes: int = MAX_YAML_BYTES,
    max_depth: int = MAX_YAML_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
) -> tuple[yaml.Node | None, Any]:
    """``(node tree, data)`` of the single YAML document in ``text`` (``(None, None)`` when
    empty), with PyYAML's safe constructors. Raises :class:`YamlLimitError` over a limit and
    ``yaml.YAMLError`` for invalid YAML."""
    if len(text) > max_bytes:
        raise YamlLimitError(f"the text is longer than {max_bytes} characters")
    if _bracket_depth(text) > max_depth:
        # PyYAML's scanner is quadratic in unclosed flow brackets: refuse before it starts.
        raise YamlLimitError(f"nested deeper than {max_depth} levels")
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise YamlLimitError(f"nested deeper than {max_depth} levels") from None
        if node is None:
            return None, None
        if _depth(node, max_depth) > max_depth:
            raise YamlLimitError(f"nested deeper than {max_depth} levels")
        try:
            if expanded_size(node) > max_nodes:
                raise YamlLimitError(f"expands to more than {max_nodes} nodes (aliases included)")
            return node, loader.construct_document(node)
        except RecursionError:
            raise YamlLimitError("aliases nested too deeply") from None
    finally:
        loader.dispose()


_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _bracket_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in ``text``, quotes and comments not excluded (an
    upper bound of the flow-collection depth; real files stay far below any sane limit)."""
    brackets = _NOT_BRACKET.sub("", text)
    if not brackets:
        return 0
    return max(0, *itertools.accumulate(1 if c in "[{" else -1 for c in brackets))


def _depth(root: yaml.Node, limit: int) -> int:
    """The nesting depth of ``root`` (iterative; stops counting past ``limit``)."""
    deepest = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if id(node) in seen:  # an aliased node: its depth below was counted already
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend((n, depth + 1) for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((n, depth + 1) for n in node.value)
    return deepest


def expanded_size(root: yaml.Node) -> int:
    """How many nodes ``root`` stands for with every alias expanded, in time linear in the
    file (an aliased node is the same object: counted once, its size remembered). Capped, so
    the sum for a deep "billion laughs" stays a small number. Recursive: check depth first."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size_of(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise YamlLimitError("recursive alias: an anchor refers to itself")
        open_nodes.add(key)
        size = 1
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                size = min(size + size_of(key_node) + size_of(value_node), _SIZE_CAP)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                size = min(size + size_of(item), _SIZE_CAP)
        open_nodes.discard(key)
        sizes[key] = size
        return size

    return size_of(root)


def loads_json(text: str | bytes) -> Any:
    """:func:`json.loads`, with nesting too deep to parse raised as
    :class:`json.JSONDecodeError` ("nested too deeply") instead of ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", doc[:100], 0) from None
