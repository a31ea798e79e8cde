"""A fact file: a relation catalogue and ``(subject, relation, object)`` triples.

YAML (or JSON, a subset of YAML)::

    relations:
      contraindicated_in:
        type: passive            # noun | active | passive: how question templates phrase it
        phrase: contraindicated in
        negation: not contraindicated in
        transitive: false
        symmetric: false
        inverse: null            # the name of the relation that links object -> subject
    facts:
      - [ibuprofen, contraindicated_in, third trimester of pregnancy]

Every problem is a :class:`FactsError` naming the key path and the file's line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from guardrail.exceptions import ConfigError

RelationType = Literal["noun", "active", "passive"]
_TRIPLE_FIELDS = ("subject", "relation", "object")


class FactsError(ConfigError):
    """A fact file is invalid; the message names the file, key path and line."""


class Relation(BaseModel):
    """One relation of the catalogue: how to phrase it and which logic it obeys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: RelationType = Field(description="noun | active | passive phrasing in templates")
    phrase: str = Field(
        min_length=1,
        description="the relation in words: 'treats' (active), 'contraindicated in' (passive), "
        "the shared noun 'side effects' (noun)",
    )
    negation: str = Field(min_length=1, description="its negation in words")
    symmetric: bool = False
    transitive: bool = False
    inverse: str | None = Field(default=None, description="relation linking object -> subject")


class Triple(BaseModel):
    """``(subject, relation, object)``."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    object: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        """``[subject, relation, object]`` is the short form of a triple."""
        if isinstance(value, list | tuple):
            if len(value) != 3:
                raise ValueError(f"a fact is [subject, relation, object], got {list(value)!r}")
            return dict(zip(_TRIPLE_FIELDS, value, strict=True))
        return value

    def key(self) -> tuple[str, str, str]:
        return (self.subject, self.relation, self.object)


class FactBase(BaseModel):
    """The validated fact file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relations: dict[str, Relation] = Field(min_length=1)
    facts: list[Triple] = Field(min_length=1)

    def check_references(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Problems no field validator can see: unknown relations and inverses."""
        problems: list[tuple[tuple[str | int, ...], str]] = []
        for name, relation in self.relations.items():
            if relation.inverse is not None and relation.inverse not in self.relations:
                problems.append(
                    (("relations", name, "inverse"), f"unknown relation {relation.inverse!r}")
                )
        for i, fact in enumerate(self.facts):
            if fact.relation not in self.relations:
                known = ", ".join(sorted(self.relations))
                problems.append(
                    (("facts", i, "relation"), f"unknown relation {fact.relation!r} ({known})")
                )
        return problems


def _line_of(node: yaml.Node, path: tuple[str | int, ...]) -> int | None:
    """The 1-based line of ``path`` inside the composed YAML ``node``."""
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            match = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
        elif isinstance(node, yaml.SequenceNode) and part in _TRIPLE_FIELDS:
            index = _TRIPLE_FIELDS.index(str(part))
            match = node.value[index] if index < len(node.value) else None
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            match = node.value[part] if part < len(node.value) else None
        else:
            match = None
        if match is None:
            break
        node = match
    return node.start_mark.line + 1


def parse_facts(text: str, source: str = "<string>") -> FactBase:
    """Validate a fact file given as text."""
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FactsError(f"{source}: not valid YAML: {exc}") from None
    if node is None or not isinstance(data, dict):
        raise FactsError(f"{source}: expected a mapping with 'relations' and 'facts'")
    try:
        base = FactBase.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        path = tuple(p for p in error["loc"] if isinstance(p, str | int))
        where = ".".join(str(p) for p in path)
        raise FactsError(
            f"{source}: {where}: {error['msg']} (line {_line_of(node, path)})"
        ) from None
    problems = base.check_references()
    if problems:
        path, message = problems[0]
        where = ".".join(str(p) for p in path)
        raise FactsError(f"{source}: {where}: {message} (line {_line_of(node, path)})")
    return base


def load_facts(path: str | Path) -> FactBase:
    """Read and validate a fact file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FactsError(f"{path}: cannot read ({exc})") from None
    return parse_facts(text, str(path))
