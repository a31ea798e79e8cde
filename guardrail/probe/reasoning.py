"""Derive new facts with a real logic engine: clingo (answer set programming).

Why clingo: it installs from PyPI alone (a wheel, no system package), grounds and solves the
small Datalog-style programs these rules are in milliseconds, and its Python API hands back the
derived atoms as data. SWI-Prolog would need a Debian package as well.

The paper's (HalluVault) rules, generated from the relation catalogue:

* **symmetric** ``R(s, o) -> R(o, s)`` for relations marked ``symmetric``;
* **inverse** ``R(s, o) -> R'(o, s)`` for ``inverse: R'`` (both directions);
* **transitive** ``R(s, m), R(m, o) -> R(s, o)`` for relations marked ``transitive``;
* **composite**: chains of the above (a derived triple whose derivation uses more than one
  rule type);
* **negation**: every known triple ``R(s, o)`` makes ``not-R(s, o)`` false (no engine needed:
  it is read off the known triples).

Each derived triple keeps one shortest derivation: the rule and its premises, recursively down
to the fact file's triples. Derivations are bounded by ``max_depth`` rule applications.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal, cast

from guardrail.exceptions import ConfigError
from guardrail.probe.facts import FactBase

RuleName = Literal["fact", "symmetric", "inverse", "transitive", "composite", "negation"]
Key = tuple[str, str, str]

_PROGRAM = """
d(T, 0) :- fact(T).
by(t(O,R,S), symmetric, t(S,R,O), none, N+1) :- d(t(S,R,O), N), symmetric(R), N < maxd.
by(t(O,R2,S), inverse, t(S,R,O), none, N+1) :- d(t(S,R,O), N), inverse(R, R2), N < maxd.
by(t(S,R,Z), transitive, t(S,R,M), t(M,R,Z), N1+1) :-
    d(t(S,R,M), N1), d(t(M,R,Z), N2), transitive(R), N1 >= N2, N1 < maxd, S != Z.
by(t(S,R,Z), transitive, t(S,R,M), t(M,R,Z), N2+1) :-
    d(t(S,R,M), N1), d(t(M,R,Z), N2), transitive(R), N2 > N1, N2 < maxd, S != Z.
d(T, N) :- by(T, _, _, _, N).
#show by/5.
"""


@dataclass(frozen=True)
class Derivation:
    """How a triple is known: a rule and the derivations of its premises."""

    rule: Literal["fact", "symmetric", "inverse", "transitive", "negation"]
    triple: Key
    premises: tuple[Derivation, ...] = ()

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
        stated = f"not ({s}, {r}, {o})" if self.rule == "negation" else f"({s}, {r}, {o})"
        lines = [f"{'  ' * indent}{self.rule}: {stated}"]
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


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def program(base: FactBase, max_depth: int) -> str:
    """The logic program for ``base``: facts, the catalogue's properties, the rules."""
    lines = [f"#const maxd={max_depth}."]
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
    return "\n".join(lines) + "\n" + _PROGRAM


def derive(base: FactBase, *, max_depth: int = 3) -> Knowledge:
    """Run the rules on clingo; every new triple with one shortest derivation."""
    try:
        import clingo
    except ImportError:
        raise ConfigError(
            "guardrail probe needs the clingo logic engine: pip install 'guardrail[probe]'"
        ) from None

    control = clingo.Control(["--warn=none"])
    control.add("base", [], program(base, max_depth))
    control.ground([("base", [])])
    steps: dict[Key, list[tuple[int, str, tuple[Key, ...]]]] = defaultdict(list)

    def key(term: clingo.Symbol) -> Key:
        s, r, o = (arg.string for arg in term.arguments)
        return (s, r, o)

    def on_model(model: clingo.Model) -> None:
        for atom in model.symbols(shown=True):
            triple, rule, first, second, depth = atom.arguments
            premises = tuple(
                key(t)
                for t in (first, second)
                if t.type is clingo.SymbolType.Function and t.name == "t"
            )
            steps[key(triple)].append((depth.number, rule.name, premises))

    control.solve(on_model=on_model)
    facts = [fact.key() for fact in base.facts]
    known: dict[Key, Derivation] = {t: Derivation("fact", t) for t in facts}

    def build(triple: Key) -> Derivation:
        if triple in known:
            return known[triple]
        _, rule, premises = min(steps[triple])
        derivation = Derivation(
            rule,  # type: ignore[arg-type]
            triple,
            tuple(build(p) for p in premises),
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
    return knowledge
