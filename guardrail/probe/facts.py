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
        complete: false          # true: the file lists every true triple of it (closed world)
        asymmetric: false        # true: R(s, o) makes R(o, s) false
    facts:
      - [ibuprofen, contraindicated_in, third trimester of pregnancy]
    rules:                       # optional: cross-relation rules, variables start with "?"
      - name: class_contraindication
        if:
          - [?drug, belongs_to, ?class]
          - [?class, contraindicated_in, ?period]
        then: [?drug, contraindicated_in, ?period]
        relation: null           # the phrasing of then's relation when the rule introduces it

or JSON Lines (``.jsonl``), one object a line: a relation (``{"relation": NAME, "type": ...,
"phrase": ..., ...}`` with the fields above), a fact (``{"subject": ..., "relation": ...,
"object": ...}``, or the list ``[subject, relation, object]``) or a rule (``{"if": [...],
"then": [...], ...}``).

Every problem is a :class:`FactsError` naming the key path and the file's line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from guardrail.exceptions import ConfigError
from guardrail.safe_load import load_yaml_document, loads_json

RelationType = Literal["noun", "active", "passive"]
_TRIPLE_FIELDS = ("subject", "relation", "object")


class FactsError(ConfigError):
    """A fact file is invalid; the message names the file, key path and line."""


VARIABLE = re.compile(r"^\?[A-Za-z_][A-Za-z0-9_]*$")
Problem = tuple[tuple[str | int, ...], str]


def is_variable(term: str) -> bool:
    """A rule pattern's variable: ``?`` and a name (``?drug``)."""
    return bool(VARIABLE.match(term))


def _grounded(base: FactBase) -> set[str]:
    """The relations that can hold at all: with facts, or reached from them by an inverse or
    by rules whose every premise relation can hold."""
    held = {fact.relation for fact in base.facts}
    changed = True
    while changed:
        changed = False
        for name, relation in base.relations.items():
            inverse = relation.inverse
            if inverse is not None and (name in held) != (inverse in held):
                held |= {name, inverse}
                changed = True
        for rule in base.rules:
            if rule.then.relation not in held and all(p.relation in held for p in rule.if_):
                held.add(rule.then.relation)
                changed = True
    return held


def _feeds(base: FactBase) -> dict[str, set[str]]:
    """Relation -> the relations a declared rule concluding it needs."""
    out: dict[str, set[str]] = {}
    for rule in base.rules:
        out.setdefault(rule.then.relation, set()).update(p.relation for p in rule.if_)
    return out


def _reaches(graph: Mapping[str, set[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    todo = [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def check_rules(base: FactBase) -> list[Problem]:
    """Every problem of ``base``'s declared rules (see the module docstring)."""
    problems: list[Problem] = []
    known = set(base.relations)
    for i, rule in enumerate(base.rules):
        at: tuple[str | int, ...] = ("rules", i)
        concluded = rule.then.relation
        if rule.relation is not None and base.relations.get(concluded) != rule.relation:
            problems.append(
                ((*at, "relation"), f"relation {concluded!r} is already in the catalogue with "
                 "another phrasing; drop the rule's 'relation:' or rename its relation")
            )  # fmt: skip
        for j, pattern in enumerate(rule.if_):
            if pattern.relation not in known:
                problems.append(
                    ((*at, "if", j, "relation"), f"unknown relation {pattern.relation!r}")
                )
        if concluded not in known:
            problems.append(
                ((*at, "then", "relation"), f"unknown relation {concluded!r}: declare it under "
                 "'relations' or give the rule a 'relation:' phrasing")
            )  # fmt: skip
        bound = {v for pattern in rule.if_ for v in pattern.variables()}
        for variable in rule.then.variables():
            if variable not in bound:
                problems.append(
                    ((*at, "then"), f"variable {variable} of 'then' is bound by no 'if' pattern "
                     "(an unsafe rule: it would have to invent entities)")
                )  # fmt: skip
        if rule.then in rule.if_:
            problems.append(((*at, "then"), "the rule concludes one of its own premises (a cycle)"))
    if problems:
        return problems
    held, feeds = _grounded(base), _feeds(base)
    for i, rule in enumerate(base.rules):
        unmet = [p.relation for p in rule.if_ if p.relation not in held]
        cyclic = [r for r in unmet if _reaches(feeds, r, rule.then.relation)]
        if cyclic:
            problems.append(
                (("rules", i), f"{rule.label(i)} never fires: {cyclic[0]!r} holds only through "
                 f"rules that need {rule.then.relation!r}, this rule's own conclusion (a cycle "
                 "that no fact starts)")
            )  # fmt: skip
    return problems


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
    synonyms: list[str] = Field(
        default_factory=list,
        description="other wordings of the relation (same meaning): each gives one more "
        "question with the same expected answer",
    )
    complete: bool = Field(
        default=False,
        description="the file lists every true triple of this relation among its entities: "
        "any other subject/object pairing of them is false (closed-world questions)",
    )
    asymmetric: bool = Field(
        default=False, description="R(s, o) makes R(o, s) false (reversed-pair questions)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Relation:
        if self.symmetric and self.asymmetric:
            raise ValueError("a relation cannot be both symmetric and asymmetric")
        return self


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


def _variable(value: Any) -> Any:
    """PyYAML reads ``?drug`` inside ``[...]`` as the mapping ``{drug: null}`` (its flow-key
    syntax); such an item is the variable it was written as."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if isinstance(key, str) and inner is None:
            return f"?{key}"
    return value


class Pattern(BaseModel):
    """A triple pattern of a declared rule: each part a constant or a ``?variable``."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    object: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            if len(value) != 3:
                got = [_variable(v) for v in value]
                raise ValueError(f"a pattern is [subject, relation, object], got {got!r}")
            return dict(zip(_TRIPLE_FIELDS, (_variable(v) for v in value), strict=True))
        return value

    @model_validator(mode="after")
    def _terms(self) -> Pattern:
        for term in (self.subject, self.object):
            if term.startswith("?") and not is_variable(term):
                raise ValueError(f"{term!r} is not a variable name (? then letters, digits, _)")
        if self.relation.startswith("?"):
            raise ValueError("the relation of a pattern must be a relation name, not a variable")
        return self

    def key(self) -> tuple[str, str, str]:
        return (self.subject, self.relation, self.object)

    def variables(self) -> list[str]:
        return [t for t in (self.subject, self.object) if is_variable(t)]


class DeclaredRule(BaseModel):
    """A cross-relation rule: when every ``if`` pattern holds (variables bound consistently),
    the ``then`` pattern holds. ``relation`` phrases ``then``'s relation when the rule
    introduces it (it is then added to the catalogue)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str | None = Field(default=None, min_length=1)
    if_: list[Pattern] = Field(alias="if", min_length=1)
    then: Pattern
    relation: Relation | None = None

    def label(self, index: int) -> str:
        return self.name or f"rule {index + 1}"


class FactBase(BaseModel):
    """The validated fact file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relations: dict[str, Relation] = Field(min_length=1)
    facts: list[Triple] = Field(min_length=1)
    rules: list[DeclaredRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _rule_relations(self) -> FactBase:
        """A relation a rule introduces joins the catalogue (conflicts: ``check_references``)."""
        for rule in self.rules:
            if rule.relation is not None and rule.then.relation not in self.relations:
                self.relations[rule.then.relation] = rule.relation
        return self

    def check_references(self) -> list[Problem]:
        """Problems no field validator can see: unknown relations and inverses, bad rules."""
        problems: list[Problem] = []
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
        problems.extend(check_rules(self))
        return problems


class Catalogue(FactBase):
    """A relation catalogue, facts optional (``guardrail propose-facts --relations``)."""

    facts: list[Triple] = Field(default_factory=list)


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


def parse_facts(text: str, source: str = "<string>", model: type[FactBase] = FactBase) -> FactBase:
    """Validate a fact file (or, with ``model=Catalogue``, a catalogue) given as text."""
    try:
        node, data = load_yaml_document(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or type(exc).__name__
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise FactsError(f"{source}: not valid YAML: {problem}{where}") from None
    if node is None or not isinstance(data, dict):
        raise FactsError(f"{source}: expected a mapping with 'relations' and 'facts'")
    try:
        base = model.model_validate(data)
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


def _jsonl_data(text: str, source: str) -> tuple[dict[str, Any], dict[tuple[str, int], int]]:
    """The fact-file mapping a JSON Lines text stands for, and the line of each entry."""
    data: dict[str, Any] = {"relations": {}, "facts": []}
    lines: dict[tuple[str, int], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = loads_json(raw)
        except json.JSONDecodeError as exc:
            raise FactsError(f"{source}: line {number}: not JSON ({exc.msg})") from None
        if isinstance(obj, dict) and "if" in obj:
            lines[("rules", len(data.setdefault("rules", [])))] = number
            data["rules"].append(obj)
        elif isinstance(obj, dict) and "relation" in obj and "subject" not in obj:
            fields = {k: v for k, v in obj.items() if k != "relation"}
            name = str(obj["relation"])
            lines[("relations", len(data["relations"]))] = number
            data["relations"][name] = fields
        elif isinstance(obj, dict | list):
            lines[("facts", len(data["facts"]))] = number
            data["facts"].append(obj)
        else:
            raise FactsError(f"{source}: line {number}: expected a relation or a fact object")
    return data, lines


def _jsonl_line(
    data: dict[str, Any], lines: dict[tuple[str, int], int], path: tuple[str | int, ...]
) -> int | None:
    if len(path) < 2:
        return None
    section, key = path[0], path[1]
    if section == "relations" and isinstance(key, str) and key in data["relations"]:
        return lines.get(("relations", list(data["relations"]).index(key)))
    if section in ("facts", "rules") and isinstance(key, int):
        return lines.get((str(section), key))
    return None


def parse_jsonl_facts(
    text: str, source: str = "<string>", model: type[FactBase] = FactBase
) -> FactBase:
    """Validate a JSON Lines fact file given as text (see the module docstring)."""
    data, lines = _jsonl_data(text, source)
    problems: list[tuple[tuple[str | int, ...], str]]
    try:
        base = model.model_validate(data)
        problems = base.check_references()
    except ValidationError as exc:
        error = exc.errors()[0]
        problems = [(tuple(p for p in error["loc"] if isinstance(p, str | int)), error["msg"])]
    if problems:
        path, message = problems[0]
        where = ".".join(str(p) for p in path)
        line = _jsonl_line(data, lines, path)
        at = f" (line {line})" if line is not None else ""
        raise FactsError(f"{source}: {where}: {message}{at}")
    return base


def load_facts(path: str | Path, model: type[FactBase] = FactBase) -> FactBase:
    """Read and validate a fact file (``.jsonl``: JSON Lines; anything else: YAML/JSON);
    ``model=Catalogue`` reads a relation catalogue whose facts are optional."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FactsError(f"{path}: cannot read ({exc})") from None
    if str(path).endswith(".jsonl"):
        return parse_jsonl_facts(text, str(path), model)
    return parse_facts(text, str(path), model)
