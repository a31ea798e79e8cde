"""Question resolution: read a short answer with its question before it is decomposed.

MetaRAG's decomposition prompt (A.1) reads the answer alone, so an answer whose meaning lives
in the question — "Yes.", "Yes, they can.", "Two.", "Terminal 5." — yields no factoid and
nothing is verified. This step runs first and is separate from the prompt (which stays
verbatim): the answer's first sentence, when it leans on the question, is replaced by
self-contained statements ("Pregnant women can take ibuprofen."), each with the span of the
answer's words it stands for. The sentences after it that still lean on the question — a
subject pronoun with no noun phrase of the answer's own to point to ("Yes. It must be done
within two weeks.") — are replaced the same way, until the first sentence that stands on its
own; the rest of the answer is left as written. Long answers that open with a full sentence
are untouched.

It also recognises an answer that only declines ("I don't know.", "I can't answer that from
the sources."): such an answer claims nothing and is reported as ``abstained``.

Languages are modules: each provides ``LANGUAGE``, ``resolve_sentence(question, sentence)``
(statements with the name of the rule that made each), ``abstains(sentences)`` and, if it
reads follow-up sentences, ``resolve_follow(question, sentence)`` (the same for a later
sentence; without it only the first sentence is read) and, if it can tell, ``asks_time(question)``
(whether the question asks for a time of day, so that a bare hour in the reply — "From 9." —
is read as a clock time) and ``premise(question)`` (what the question says around the
sentence it asks: "we're in a self-catered flat"), ``question_text(question)`` (the question
as its rules read it: "whats" as "what's") and ``question_parts(question)`` (the questions a
compound question asks, "What is the fee, and how long does it take?": the answer's first
sentences are read with them in turn). English is
:mod:`guardrail.scoring.resolve.english` (its grammar, yes/no and wh rules in the private
``_en_*`` modules beside it); another language is one more module and one entry in
:data:`LANGUAGES`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

from guardrail.judges.local.replies import remember
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

    ``statements`` is empty when nothing leaned on the question; ``parts`` pairs each
    replaced sentence's span with the statements standing for it, in answer order, and
    ``replaced`` is the first of those spans. :attr:`text` is what the decomposer reads.
    """

    answer: str
    statements: tuple[ResolvedStatement, ...] = ()
    replaced: Span | None = None
    abstention: bool = False
    language: str = "en"
    parts: tuple[tuple[Span, tuple[ResolvedStatement, ...]], ...] = ()

    @property
    def resolved(self) -> bool:
        return bool(self.statements)

    @property
    def replacements(self) -> tuple[tuple[Span, tuple[ResolvedStatement, ...]], ...]:
        """Each replaced span and its statements (one part when only ``replaced`` is set)."""
        if self.parts:
            return self.parts
        if self.replaced is None or not self.statements:
            return ()
        return ((self.replaced, self.statements),)

    def statements_for(self, span: Span) -> tuple[ResolvedStatement, ...]:
        """The statements that stand for the sentence at ``span`` (empty: not replaced)."""
        return next((made for found, made in self.replacements if found == span), ())

    @property
    def text(self) -> str:
        """The answer with its leaning sentences replaced by their statements."""
        pieces: list[str] = []
        at = 0
        for (start, end), made in self.replacements:
            pieces.append(self.answer[at:start].strip())
            pieces.append(" ".join(s.text for s in made))
            at = end
        if not pieces:
            return self.answer
        pieces.append(self.answer[at:].strip())
        return " ".join(piece for piece in pieces if piece)

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
    """``answer`` read with ``question`` (see the module docstring). The reply values of its
    statements are handed to the offline judge for this turn
    (:func:`guardrail.judges.local.replies.remember`)."""
    # a turn that resolves nothing carries no marks from the one before, only its question
    remember({}, question=question)
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
    typed = getattr(rules, "question_text", None)  # optional for a language module
    question = typed(question) if typed is not None else question
    spans = _split_lead(rules, answer, spans)
    parts: list[tuple[Span, tuple[ResolvedStatement, ...]]] = []
    marks: dict[str, list[str]] = {}
    follow = getattr(rules, "resolve_follow", None)  # optional for a language module
    split = getattr(rules, "question_parts", None)  # optional for a language module
    questions = split(question) if split is not None else [question]
    for index, (start, end) in enumerate(spans):
        read: Callable[[str, str], list[tuple[str, str]]] | None
        if index < len(questions):  # one reply sentence for each question asked
            asked, read = questions[index], rules.resolve_sentence
        else:
            asked, read = questions[-1], follow
        if read is None:
            break
        made = read(asked, answer[start:end])
        if not made:
            break  # a sentence of its own: what follows can point into it
        placed = _placed(answer, _word_span(answer, start, end), made)
        parts.append(((start, end), placed))
        marks.update(_reply_values(asked, answer[start:end], placed))
    if not parts:
        return Resolution(answer, language=language)
    asks_time = getattr(rules, "asks_time", None)  # optional for a language module
    statements = tuple(s for _, made in parts for s in made)
    premise = getattr(rules, "premise", None)  # optional for a language module
    remember(
        marks,
        clock=marks if asks_time is not None and asks_time(question) else (),
        resolved=[s.text for s in statements],
        premise=premise(question) if premise is not None else "",
        question=question,
    )
    return Resolution(answer, statements, parts[0][0], language=language, parts=tuple(parts))


def _split_lead(rules: LanguageRules, answer: str, spans: list[Span]) -> list[Span]:
    """The first sentence cut after a yes or no that is a sentence of its own, when the
    language module says where one ends (``lead_end``, optional)."""
    lead_end = getattr(rules, "lead_end", None)
    start, end = spans[0]
    cut = None if lead_end is None else lead_end(answer[start:end])
    if cut is None:
        return spans
    rest = start + cut
    while rest < end and answer[rest].isspace():
        rest += 1
    return [(start, start + cut), (rest, end), *spans[1:]]


#: The rule name of a statement that is the sentence's own words after a yes or no.
AS_WRITTEN = "as_written"


def _placed(answer: str, words: Span, made: list[tuple[str, str]]) -> tuple[ResolvedStatement, ...]:
    """The statements of one sentence with their spans: a statement kept as written ("Yes,
    *ibuprofen is safe*") on its own words, the others on the words before it (the "Yes");
    without such a statement, every statement on the whole sentence."""
    start, end = words
    own: Span | None = None
    for text, rule in made:
        if rule == AS_WRITTEN:
            at = answer.lower().find(text.rstrip(".!").lower(), start, end)
            if at > start:
                own = (at, min(end, at + len(text.rstrip(".!"))))
    lead = _word_span(answer, start, own[0]) if own is not None else words
    return tuple(
        ResolvedStatement(
            text=t, spans=[own if r == AS_WRITTEN and own is not None else lead], rule=r
        )
        for t, r in made
    )


def _word_span(answer: str, start: int, end: int) -> Span:
    """The sentence's span without its closing punctuation."""
    while end > start and not answer[end - 1].isalnum():
        end -= 1
    return (start, end)


_WORD = re.compile(r"[^\W_][\w'’%:.-]*,?")
#: Reply words that carry no value of their own: yes and no, pronouns, hedges.
_NOT_VALUES = frozenset(
    "yes yeah yep sure certainly definitely absolutely of course no nope not never right "
    "correct true it they he she you we i me him her them himself herself themselves itself "
    "yourself usually normally generally typically always often mostly roughly about around "
    "approximately only just exactly precisely still also too though".split()
)
#: Words that open a relative clause or a condition: the value is the noun phrase before it
#: ("the post office *you picked*", "31/1/2027 *if you file online*").
_RELATIVE = frozenset("that which who whom whose where you i we they if unless provided".split())
_TYPED = re.compile(
    r"^(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|half|quarter|noon|midday|midnight|once|twice)$)",
    re.IGNORECASE,
)


def _reply_values(
    question: str, reply: str, made: tuple[ResolvedStatement, ...]
) -> dict[str, list[str]]:
    """For the offline judge, which words of each resolved statement came from the reply:
    the reply's words the question does not use, in the groups the reply's commas make (a
    "," between two groups). For a wh-question (or an alternative one) that is the value
    that fills its gap, up to a relative clause; after a yes or no, only a group holding a
    typed word (a number, a time, a name: "Yes, for up to 90 days.") — "Yes, it is fine."
    adds a verdict, not a value."""
    out: dict[str, list[str]] = {}
    asked = {w.lower().rstrip(".:,") for w in _WORD.findall(question)}
    groups: list[list[tuple[int, str]]] = [[]]
    for at, word in enumerate(_WORD.findall(reply)):
        groups[-1].append((at, word))
        if word.endswith(","):
            groups.append([])
    for statement in made:
        if statement.rule == AS_WRITTEN:
            continue
        said = {w.lower().rstrip(".:,") for w in _WORD.findall(statement.text)}
        chosen = statement.rule == "alternative"  # the question names every option
        wh = statement.rule.startswith("wh") or chosen
        values: list[str] = []
        for group in groups:
            kept: list[str] = []
            typed = False
            for at, word in group:
                plain = word.rstrip(".:,")
                low = plain.lower()
                if wh and (kept or values) and low in _RELATIVE:
                    break
                if (low in asked and not chosen) or low in _NOT_VALUES or low not in said:
                    continue
                kept.append(plain)
                typed = typed or _TYPED.match(plain) is not None or (at > 0 and plain[:1].isupper())
            if kept and (wh or typed):
                values += [*kept, ","]
            if (
                wh
                and len(kept) < len(group)
                and kept
                and _RELATIVE & {w.lower().rstrip(".:,") for _, w in group}
            ):
                break
        out[statement.text] = values[:-1]
    return out
