"""Questions with known answers, from known and derived triples (HalluVault Table 1).

Each relation's ``type`` picks the paper's templates:

* ``noun`` (``phrase`` is the shared noun, e.g. "side effects"): "Is it true that S and O share
  similar R?"; mutation: "S and O have totally different
  R. Please judge the truthfulness of this statement."
* ``passive``: "Is it true that S is R O?"; mutation: "It is impossible for S to be R O. Am I
  right?"
* ``active``: "Is it true that S R O?"; mutation: "S NOT-R O. Please judge the truthfulness
  of this statement."

The question's expected answer is whether the triple holds; a mutation has the opposite
meaning (the antonym wording), so its expected answer flips. Each of the relation's
``synonyms`` gives one more template question in other words, with the same expected answer.

The negation rule adds, for every known triple, the question asked with the relation's
``negation`` phrase (expected: no). Every question keeps the triple, the rule that produced it
and its derivation, so a report can show why its answer is what it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from guardrail.probe.facts import FactBase, Relation
from guardrail.probe.reasoning import Derivation, Derived, Key, Knowledge, RuleName

Answer = Literal["yes", "no"]
Form = Literal["template", "synonym", "mutation", "negation"]
_PLURALS = frozenset({"men", "women", "children", "people", "staff", "police"})


@dataclass(frozen=True)
class Question:
    """One test question and its expected answer."""

    text: str
    expected: Answer
    triple: Key
    rule: RuleName
    form: Form
    derivation: Derivation


def _flip(answer: Answer) -> Answer:
    return "no" if answer == "yes" else "yes"


_QUALIFIERS = frozenset(
    "who with holding waiting after of in under aged over planning trying for without on during "
    "at from".split()
)


def _be(subject: str) -> str:
    """``are`` for a plural subject (its head noun: the last word before a qualifier), else
    ``is``."""
    words = subject.split()
    cut = next((i for i, w in enumerate(words) if i and w.lower() in _QUALIFIERS), len(words))
    last = words[cut - 1].lower() if words else ""
    plural = last in _PLURALS or (last.endswith("s") and not last.endswith(("ss", "us", "is")))
    return "are" if plural else "is"


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:]


def template(relation: Relation, s: str, o: str, *, negated: bool = False) -> str:
    """The yes/no question asking whether ``(s, relation, o)`` holds (or, ``negated``, whether
    its negation does)."""
    if relation.type == "noun":
        share = "do not share" if negated else "share"
        return f"Is it true that {s} and {o} {share} similar {relation.phrase}?"
    words = relation.negation if negated else relation.phrase
    if relation.type == "passive":
        return f"Is it true that {s} {_be(s)} {words} {o}?"
    return f"Is it true that {s} {words} {o}?"


def statement(relation: Relation, s: str, o: str, *, negated: bool = False) -> str:
    """The triple as a declarative sentence (a knowledge point): "S is R O." / "S R O." /
    "S and O share similar R." (``negated``: with the relation's negation)."""
    if relation.type == "noun":
        share = "do not share" if negated else "share"
        return _sentence(f"{s} and {o} {share} similar {relation.phrase}.")
    words = relation.negation if negated else relation.phrase
    if relation.type == "passive":
        return _sentence(f"{s} {_be(s)} {words} {o}.")
    return _sentence(f"{s} {words} {o}.")


def mutation(relation: Relation, s: str, o: str) -> str:
    """The same triple stated with the opposite meaning, to be judged (answer flips)."""
    if relation.type == "noun":
        body = f"{s} and {o} have totally different {relation.phrase}"
        return _sentence(f"{body}. Please judge the truthfulness of this statement.")
    if relation.type == "passive":
        return _sentence(f"It is impossible for {s} to be {relation.phrase} {o}. Am I right?")
    body = f"{s} {relation.negation} {o}"
    return _sentence(f"{body}. Please judge the truthfulness of this statement.")


def questions(base: FactBase, knowledge: Knowledge) -> list[Question]:
    """Every question the known and derived triples give, facts first, in a stable order."""
    items: list[Derived] = [
        Derived(t, True, "fact", Derivation("fact", t)) for t in knowledge.facts
    ] + list(knowledge.derived)
    out: list[Question] = []
    for item in items:
        s, name, o = item.triple
        relation = base.relations[name]
        if item.rule == "negation":
            text = template(relation, s, o, negated=True)
            out.append(Question(text, "no", item.triple, "negation", "negation", item.derivation))
            continue
        expected: Answer = "yes" if item.holds else "no"
        out.append(
            Question(
                template(relation, s, o), expected, item.triple, item.rule, "template",
                item.derivation,
            )
        )  # fmt: skip
        for synonym in relation.synonyms:
            worded = relation.model_copy(update={"phrase": synonym})
            out.append(
                Question(
                    template(worded, s, o), expected, item.triple, item.rule, "synonym",
                    item.derivation,
                )
            )  # fmt: skip
        out.append(
            Question(
                mutation(relation, s, o), _flip(expected), item.triple, item.rule, "mutation",
                item.derivation,
            )
        )  # fmt: skip
    return out
