"""A scripted chatbot for testing the probe itself: it answers from its own beliefs.

:class:`BeliefChatbot` holds a fact base of *beliefs* (the truth, or the truth with some facts
seeded wrong, or with wrong beliefs added) and reasons over them perfectly with the same rules
(clingo, the full closure: declared rules included, no depth bound), under a closed world: a
triple it cannot derive it takes as false. Given the probe's questions (their triple
and form, never their expected answer) it answers each in the Table 2 format — verdict, a short
reason, then its beliefs about the question's entities as numbered knowledge points. So every
error it makes comes from a wrong belief, which is what the targets measure: each seeded wrong
fact must be caught, and no reply built from true beliefs may be called a hallucination.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from guardrail.probe.facts import FactBase
from guardrail.probe.questions import Question, statement
from guardrail.probe.reasoning import Key, closure

_QUESTION = re.compile(r"given the question: (?P<q>.+?), please provide", re.DOTALL)


def question_of(prompt: str) -> str:
    """The question inside a Table 2 prompt (the whole text when it is not one)."""
    match = _QUESTION.search(prompt)
    return match["q"] if match else prompt


@dataclass
class BeliefChatbot:
    """Answers the given questions from ``beliefs`` (see the module docstring)."""

    beliefs: FactBase
    asked: Sequence[Question]
    max_points: int = 3
    calls: int = 0
    _held: set[Key] = field(default_factory=set, init=False)
    _by_text: dict[str, Question] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self._held = closure(self.beliefs)
        self._by_text = {q.text: q for q in self.asked}

    def points(self, entities: Iterable[str]) -> list[str]:
        """Its belief sentences about ``entities`` (fact-file beliefs first)."""
        wanted = set(entities)
        out = []
        for fact in self.beliefs.facts:
            if fact.subject in wanted or fact.object in wanted:
                relation = self.beliefs.relations[fact.relation]
                out.append(statement(relation, fact.subject, fact.object))
        return out[: self.max_points]

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        question = self._by_text.get(question_of(prompt))
        if question is None:
            return "I don't know.\nI have no knowledge about this."
        holds = question.triple in self._held
        says_it_holds = question.form in ("template", "synonym")
        verdict = "Yes" if holds == says_it_holds else "No"
        s, _, o = question.triple
        lines = [f"{verdict}, based on what I know about {s} and {o}.", "Knowledge used:"]
        lines += [f"{n}. {p}" for n, p in enumerate(self.points((s, o)), start=1)]
        return "\n".join(lines)
