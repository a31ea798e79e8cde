"""Derive new facts with a real logic engine: clingo (answer set programming).

Why clingo: it installs from PyPI alone (a wheel, no system package), grounds and solves the
small Datalog-style programs these rules are in milliseconds, and its Python API hands back the
derived atoms as data. SWI-Prolog would need a Debian package as well.

The paper's (HalluVault) rules, generated from the relation catalogue:

* **symmetric** ``R(s, o) -> R(o, s)`` for relations marked ``symmetric``;
* **inverse** ``R(s, o) -> R'(o, s)`` for ``inverse: R'`` (both directions);
* **transitive** ``R(s, m), R(m, o) -> R(s, o)`` for relations marked ``transitive``;
* **declared**: the fact file's own cross-relation rules (:mod:`~guardrail.probe.rules`),
  e.g. ``R1(x, y), R2(y, z) -> R3(x, z)``;
* **composite**: chains of the above (a derived triple whose derivation uses more than one
  rule type);
* **negation**: every known triple ``R(s, o)`` makes ``not-R(s, o)`` false (no engine needed:
  it is read off the known triples);
* **closed_world**: for a relation marked ``complete``, every type-consistent pairing the
  rules do not make true is false: the subject with another object of the relation (for a
  symmetric relation: any two of its entities, both ways round); and, for an ``asymmetric``
  relation, every true triple reversed. Truth here is the full closure of the rules (no
  depth bound; an unbounded program of the same rules), so a triple true only through a long
  chain is never asked as false.

Each derived triple keeps one shortest derivation: the rule and its premises, recursively down
to the fact file's triples. Derivations are bounded by ``max_depth`` rule applications.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from guardrail.exceptions import ConfigError
from guardrail.probe.facts import FactBase, FactsError
from guardrail.probe.rules import bounded_clause, closure_clause, quote

RuleName = Literal[
    "fact", "symmetric", "inverse", "transitive", "declared", "composite", "negation",
    "closed_world",
]  # fmt: skip
StepName = Literal[
    "fact", "symmetric", "inverse", "transitive", "declared", "negation", "closed_world"
]
Key = tuple[str, str, str]
#: Most closed-world (false) triples asked per complete relation; beyond it, a fixed sample.
MAX_CLOSED_WORLD = 5000

_PROGRAM = """
d(T, 0) :- fact(T).
by(t(O,R,S), symmetric, ps(t(S,R,O)), N+1) :- d(t(S,R,O), N), symmetric(R), N < maxd.
by(t(O,R2,S), inverse, ps(t(S,R,O)), N+1) :- d(t(S,R,O), N), inverse(R, R2), N < maxd.
by(t(S,R,Z), transitive, ps(t(S,R,M), t(M,R,Z)), N1+1) :-
    d(t(S,R,M), N1), d(t(M,R,Z), N2), transitive(R), N1 >= N2, N1 < maxd, S != Z.
by(t(S,R,Z), transitive, ps(t(S,R,M), t(M,R,Z)), N2+1) :-
    d(t(S,R,M), N1), d(t(M,R,Z), N2), transitive(R), N2 > N1, N2 < maxd, S != Z.
d(T, N) :- by(T, _, _, N).
#show by/4.
"""

_CLOSURE = """
h(T) :- fact(T).
h(t(O,R,S)) :- h(t(S,R,O)), symmetric(R).
h(t(O,R2,S)) :- h(t(S,R,O)), inverse(R, R2).
h(t(S,R,Z)) :- h(t(S,R,M)), h(t(M,R,Z)), transitive(R), S != Z.
#show h/1.
"""


@dataclass(frozen=True)
class Derivation:
    """How a triple is known: a rule and the derivations of its premises (``detail``: the
    declared rule's name, or why a closed-world triple is false)."""

    rule: StepName
    triple: Key
    premises: tuple[Derivation, ...] = ()
    detail: str = ""

    def rules(self) -> set[str]:
        """Every rule used below (and including) this step, facts excluded."""
        used: set[str] = set() if self.rule == "fact" else {str(self.rule)}
        for premise in self.premises:
            used |= premise.rules()
        return used

    def sources(self) -> list[Key]:
        """The fact-file triples this derivation rests on, in order, without repeats."""
        if self.rule == "fact":
            return [self.triple]
        seen: dict[Key, None] = {}
        for premise in self.premises:
            seen.update(dict.fromkeys(premise.sources()))
        return list(seen)

    def depth(self) -> int:
        return 0 if not self.premises else 1 + max(p.depth() for p in self.premises)

    def explain(self, indent: int = 0) -> list[str]:
        """The derivation as indented lines, conclusion first: ``rule: (s, r, o)``."""
        s, r, o = self.triple
        false = self.rule in ("negation", "closed_world")
        stated = f"not ({s}, {r}, {o})" if false else f"({s}, {r}, {o})"
        name = f"{self.rule} ({self.detail})" if self.detail else self.rule
        lines = [f"{'  ' * indent}{name}: {stated}"]
        for premise in self.premises:
            lines.extend(premise.explain(indent + 1))
        return lines


@dataclass(frozen=True)
class Derived:
    """A triple and whether it holds (``False`` for negation items), with its derivation."""

    triple: Key
    holds: bool
    rule: RuleName
    derivation: Derivation


@dataclass
class Knowledge:
    """The fact file's triples and everything the rules derive from them."""

    facts: list[Key]
    derived: list[Derived] = field(default_factory=list)

    def by_rule(self) -> dict[str, list[Derived]]:
        out: dict[str, list[Derived]] = defaultdict(list)
        for item in self.derived:
            out[item.rule].append(item)
        return dict(out)

    def holds(self, triple: Key) -> bool | None:
        """True when known to hold, False when known false (a negation), None when unknown."""
        if triple in self.facts:
            return True
        for item in self.derived:
            if item.triple == triple:
                return item.holds
        return None


_quote = quote


def _facts_and_properties(base: FactBase) -> list[str]:
    lines = []
    for fact in base.facts:
        s, r, o = (_quote(x) for x in fact.key())
        lines.append(f"fact(t({s},{r},{o})).")
    for name, relation in base.relations.items():
        if relation.symmetric:
            lines.append(f"symmetric({_quote(name)}).")
        if relation.transitive:
            lines.append(f"transitive({_quote(name)}).")
        if relation.inverse is not None:
            lines.append(f"inverse({_quote(name)},{_quote(relation.inverse)}).")
            lines.append(f"inverse({_quote(relation.inverse)},{_quote(name)}).")
    return lines


def program(base: FactBase, max_depth: int) -> str:
    """The logic program for ``base``: facts, the catalogue's properties, the built-in and the
    declared rules, depth-bounded (``d(T, N)``: ``T`` derived in ``N`` steps)."""
    lines = [f"#const maxd={max_depth}.", *_facts_and_properties(base)]
    lines += [bounded_clause(i, rule) for i, rule in enumerate(base.rules)]
    return "\n".join(lines) + "\n" + _PROGRAM


def closure_program(base: FactBase) -> str:
    """The same rules without a depth bound (``h(T)``: ``T`` holds); always finite, since no
    rule makes new entities."""
    lines = [*_facts_and_properties(base), *(closure_clause(rule) for rule in base.rules)]
    return "\n".join(lines) + "\n" + _CLOSURE


def _clingo() -> Any:
    try:
        import clingo
    except ImportError:
        raise ConfigError(
            "guardrail probe needs the clingo logic engine: pip install 'guardrail-rag[probe]'"
        ) from None
    return clingo


def _key(term: Any) -> Key:
    s, r, o = (arg.string for arg in term.arguments)
    return (s, r, o)


def closure(base: FactBase) -> set[Key]:
    """Every triple that holds under the fact file's rules, at any depth."""
    clingo = _clingo()
    control = clingo.Control(["--warn=none"])
    control.add("base", [], closure_program(base))
    control.ground([("base", [])])
    held: set[Key] = set()

    def on_model(model: Any) -> None:
        held.update(_key(atom.arguments[0]) for atom in model.symbols(shown=True))

    control.solve(on_model=on_model)
    return held


def derive(base: FactBase, *, max_depth: int = 3) -> Knowledge:
    """Run the rules on clingo; every new triple with one shortest derivation, every known
    triple's negation, and the closed-world false triples."""
    clingo = _clingo()
    control = clingo.Control(["--warn=none"])
    control.add("base", [], program(base, max_depth))
    control.ground([("base", [])])
    steps: dict[Key, list[tuple[int, str, str, tuple[Key, ...]]]] = defaultdict(list)

    def on_model(model: Any) -> None:
        for atom in model.symbols(shown=True):
            triple, rule, premises, depth = atom.arguments
            if rule.name == "declared":
                index = rule.arguments[0].number
                name, detail = "declared", base.rules[index].label(index)
            else:
                name, detail = rule.name, ""
            used = tuple(_key(t) for t in premises.arguments)
            steps[_key(triple)].append((depth.number, name, detail, used))

    control.solve(on_model=on_model)
    facts = [fact.key() for fact in base.facts]
    known: dict[Key, Derivation] = {t: Derivation("fact", t) for t in facts}

    def build(triple: Key) -> Derivation:
        if triple in known:
            return known[triple]
        _, rule, detail, premises = min(steps[triple])
        derivation = Derivation(
            cast(StepName, rule), triple, tuple(build(p) for p in premises), detail
        )
        known[triple] = derivation
        return derivation

    knowledge = Knowledge(facts=list(dict.fromkeys(facts)))
    for triple in sorted(steps, key=lambda t: (min(steps[t])[0], t)):
        if triple in facts:
            continue
        derivation = build(triple)
        used = derivation.rules()
        rule = cast(RuleName, "composite" if len(used) > 1 else next(iter(used)))
        knowledge.derived.append(Derived(triple, True, rule, derivation))
    for triple in [*knowledge.facts, *(d.triple for d in list(knowledge.derived))]:
        negated = Derivation("negation", triple, (known[triple],))
        knowledge.derived.append(Derived(triple, False, "negation", negated))
    if any(r.complete or r.asymmetric for r in base.relations.values()):
        for triple, derivation in closed_world(base, closure(base), known):
            knowledge.derived.append(Derived(triple, False, "closed_world", derivation))
    return knowledge


def closed_world(
    base: FactBase, held: set[Key], known: dict[Key, Derivation]
) -> list[tuple[Key, Derivation]]:
    """The false triples of complete and asymmetric relations, each with the true triples
    that make it false (those with a derivation within the depth bound) as premises."""
    out: list[tuple[Key, Derivation]] = []
    order = {t: i for i, t in enumerate(known)}
    for name, relation in base.relations.items():
        # the file's order first (facts, then shorter derivations), then the rest sorted
        true = sorted(
            (t for t in held if t[1] == name), key=lambda t: (order.get(t, len(order)), t)
        )
        pairs = {(s, o) for s, _, o in true}
        found: dict[Key, Derivation] = {}
        if relation.asymmetric:
            for s, _, o in true:
                if (o, s) in pairs:
                    raise FactsError(
                        f"relation {name!r} is asymmetric but holds both ways between {s!r} "
                        f"and {o!r}"
                    )
                premises = (known[(s, name, o)],) if (s, name, o) in known else ()
                reverse = (o, name, s)
                found[reverse] = Derivation("closed_world", reverse, premises, "asymmetric")
        if relation.complete:
            subjects = list(dict.fromkeys(s for s, _, _ in true))
            objects = list(dict.fromkeys(o for _, _, o in true))
            if relation.symmetric:
                subjects = objects = list(dict.fromkeys([*subjects, *objects]))
            for s in subjects:
                because = tuple(known[t] for t in true if t[0] == s and t in known)
                for o in objects:
                    if s == o or (s, o) in pairs or (s, name, o) in found:
                        continue
                    found[(s, name, o)] = Derivation(
                        "closed_world", (s, name, o), because, "complete relation"
                    )
        items = list(found.items())
        if len(items) > MAX_CLOSED_WORLD:  # a fixed sample, in the same order
            keep = set(sorted(found, key=_stable)[:MAX_CLOSED_WORLD])
            items = [item for item in items if item[0] in keep]
        out.extend(items)
    return out


def _stable(triple: Key) -> str:
    return hashlib.sha256("\0".join(triple).encode()).hexdigest()
