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

:func:`~guardrail.probe.facts.check_rules` (beside the fact file's model, which runs it)
finds what would make a rule wrong or useless, each problem a key path of the
file (the loader turns it into one line with a line number): an unknown relation, a variable of
``then`` that no ``if`` pattern binds (clingo calls such a rule unsafe: it would have to invent
entities), a rule whose conclusion is one of its own premises, and rules that only feed each
other in a cycle that no fact starts (they can never fire).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.probe.facts import DeclaredRule, Pattern


def quote(text: str) -> str:
    """``text`` as a clingo string constant."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


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
