"""Declared rules of a fact file: their checks and their clingo form.

A fact file's ``rules:`` chain *different* relations, as HalluVault's composite rule does
(R1(x, y) and R2(y, z) give R3(x, z))::

    rules:
      - name: class_contraindication
        if:
          - [?drug, belongs_to, ?class]
          - [?class, contraindicated_in, ?period]
        then: [?drug, contraindicated_in, ?period]

A term starting with ``?`` is a variable; anything else is an entity, matched exactly. The
relation of each pattern is a relation name (of the catalogue, or introduced by a rule's
``relation:`` phrasing). Every rule becomes one clause of the same logic program the built-in
rules are in (:mod:`~guardrail.probe.reasoning`), so a declared rule's conclusions chain with
the symmetric, inverse and transitive ones and keep their derivations. A conclusion whose
subject and object are the same entity is never drawn.

:func:`check_rules` finds what would make a rule wrong or useless, each problem a key path of the
file (the loader turns it into one line with a line number): an unknown relation, a variable of
``then`` that no ``if`` pattern binds (clingo calls such a rule unsafe: it would have to invent
entities), a rule whose conclusion is one of its own premises, and rules that only feed each
other in a cycle that no fact starts (they can never fire).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.probe.facts import DeclaredRule, FactBase, Pattern

VARIABLE = re.compile(r"^\?[A-Za-z_][A-Za-z0-9_]*$")
Problem = tuple[tuple[str | int, ...], str]


def is_variable(term: str) -> bool:
    """A rule pattern's variable: ``?`` and a name (``?drug``)."""
    return bool(VARIABLE.match(term))


def quote(text: str) -> str:
    """``text`` as a clingo string constant."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


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


def _terms(rule: DeclaredRule) -> Callable[[str], str]:
    """A term's clingo form: a variable as ``V<n>``, an entity quoted."""
    names: dict[str, str] = {}
    for pattern in [*rule.if_, rule.then]:
        for variable in pattern.variables():
            names.setdefault(variable, f"V{len(names)}")

    def term(text: str) -> str:
        return names[text] if text in names else quote(text)

    return term


def _triple(pattern: Pattern, term: Callable[[str], str]) -> str:
    return f"t({term(pattern.subject)},{quote(pattern.relation)},{term(pattern.object)})"


def _distinct(rule: DeclaredRule, term: Callable[[str], str]) -> str:
    subject, obj = rule.then.subject, rule.then.object
    return f", {term(subject)} != {term(obj)}" if subject != obj else ""


def bounded_clause(index: int, rule: DeclaredRule) -> str:
    """The rule in the depth-bounded program: ``by/4`` with its premises and depth."""
    term = _terms(rule)
    premises = [_triple(p, term) for p in rule.if_]
    depths = [f"N{k}" for k in range(len(premises))]
    body = ", ".join(f"d({p}, {n})" for p, n in zip(premises, depths, strict=True))
    return (
        f"by({_triple(rule.then, term)}, declared({index}), ps({','.join(premises)}), N+1) :- "
        f"{body}, N = #max{{{';'.join(depths)}}}, N < maxd{_distinct(rule, term)}."
    )


def closure_clause(rule: DeclaredRule) -> str:
    """The rule in the unbounded closure program (``h/1``: every triple that holds)."""
    term = _terms(rule)
    body = ", ".join(f"h({_triple(p, term)})" for p in rule.if_)
    return f"h({_triple(rule.then, term)}) :- {body}{_distinct(rule, term)}."
