"""Question resolution: read a short answer with its question before it is decomposed.

MetaRAG's decomposition prompt (A.1) reads the answer alone, so an answer whose meaning lives
in the question — "Yes.", "Yes, they can.", "Two.", "Terminal 5." — yields no factoid and
nothing is verified. This step runs first and is separate from the prompt (which stays
verbatim): the answer's first sentence, when it leans on the question, is replaced by
self-contained statements ("Pregnant women can take ibuprofen."), each with the span of the
answer's words it stands for; the rest of the answer is left as written. Long answers that
open with a full sentence are untouched.

It also recognises an answer that only declines ("I don't know.", "I can't answer that from
the sources."): such an answer claims nothing and is reported as ``abstained``.

Languages are modules: each provides ``LANGUAGE``, ``resolve_sentence(question, sentence)``
(statements with the name of the rule that made each) and ``abstains(sentences)``. English is
:mod:`guardrail.scoring.resolve.english` (its grammar, yes/no and wh rules in the private
``_en_*`` modules beside it); another language is one more module and one entry in
:data:`LANGUAGES`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol, cast

from guardrail.models import ResolvedStatement, Span
from guardrail.scoring.align import Alignment, align
from guardrail.text.sentences import split_sentences

__all__ = ["LANGUAGES", "LanguageRules", "Resolution", "resolve"]

#: Language code -> the module holding its rules (imported when first asked for).
LANGUAGES: dict[str, str] = {"en": "guardrail.scoring.resolve.english"}


class LanguageRules(Protocol):
    """What a language module provides."""

    LANGUAGE: str

    def resolve_sentence(self, question: str, reply_text: str) -> list[tuple[str, str]]: ...

    def abstains(self, sentences: list[str]) -> bool: ...


def rules_for(language: str) -> LanguageRules | None:
    """The rules module for ``language``; None when there is none (nothing is resolved)."""
    name = LANGUAGES.get(language)
    return None if name is None else cast(LanguageRules, importlib.import_module(name))


@dataclass(frozen=True)
class Resolution:
    """An answer read with its question.

    ``statements`` is empty when nothing leaned on the question; ``replaced`` is the span of
    the answer they stand for. :attr:`text` is what the decomposer reads.
    """

    answer: str
    statements: tuple[ResolvedStatement, ...] = ()
    replaced: Span | None = None
    abstention: bool = False
    language: str = "en"

    @property
    def resolved(self) -> bool:
        return bool(self.statements)

    @property
    def text(self) -> str:
        """The answer with its leaning sentence replaced by the statements."""
        if self.replaced is None or not self.statements:
            return self.answer
        start, end = self.replaced
        rest = self.answer[end:].strip()
        body = " ".join(s.text for s in self.statements)
        head = self.answer[:start].strip()
        return " ".join(part for part in (head, body, rest) if part)

    def align(self, factoid: str, *, min_alignment: float = 0.5) -> Alignment:
        """Where ``factoid`` sits in the answer: on a resolved statement's words when it comes
        from one (its spans are that statement's), else aligned to the answer as written."""
        plain = align(factoid, self.answer, min_alignment=min_alignment)
        best: tuple[float, ResolvedStatement] | None = None
        for statement in self.statements:
            found = align(factoid, statement.text, min_alignment=min_alignment)
            if found.aligned and (best is None or found.score > best[0]):
                best = (found.score, statement)
        if best is None or (plain.aligned and plain.score >= best[0]):
            return plain
        return Alignment(spans=list(best[1].spans), aligned=True, score=best[0])


def resolve(question: str, answer: str, *, language: str = "en") -> Resolution:
    """``answer`` read with ``question`` (see the module docstring)."""
    rules = rules_for(language)
    if rules is None or not answer.strip():
        return Resolution(answer, language=language)
    spans = split_sentences(answer, rules="prose")
    if not spans:
        return Resolution(answer, language=language)
    if rules.abstains([answer[s:e] for s, e in spans]):
        return Resolution(answer, abstention=True, language=language)
    if not question.strip():
        return Resolution(answer, language=language)
    start, end = spans[0]
    made = rules.resolve_sentence(question, answer[start:end])
    if not made:
        return Resolution(answer, language=language)
    words = _word_span(answer, start, end)
    statements = tuple(ResolvedStatement(text=t, spans=[words], rule=r) for t, r in made)
    return Resolution(answer, statements, (start, end), language=language)


def _word_span(answer: str, start: int, end: int) -> Span:
    """The sentence's span without its closing punctuation."""
    while end > start and not answer[end - 1].isalnum():
        end -= 1
    return (start, end)
