"""A value the passage gives with another word: "Dr Patel runs the asthma clinic on Mondays,
and Dr Rossi does the baby checks on Wednesdays" against "The baby checks are done by Dr
Patel".

Every word of such a statement is in the passage, so a lexical match supports it, and the
value check finds its value stated. What is wrong is the binding: the passage gives the value
in one *part* of a sentence and the statement's other word in another part, with another
value of the same kind. A part is a stretch of a sentence between commas, semicolons, colons,
dashes and the language's coordinators ("and", "und", "et", "y" ...), never cut inside a list
of values ("volets 1 et 2").

The statement is contradicted when, for one of its values (a name, a number in its unit, a
date, a time, a weekday) and one of its content words:

* the passage gives the value in some part, and that part says something the statement does
  not (a content word of its own), so it is about something else;
* the word is in exactly one part of the whole passage, that part does not give the value,
  and it gives another value of the same kind.

A part with no subject of its own ("and £20 for the photos") gives only words the statement
has and is never the value's other part; a part that goes on with a pronoun ("She also sees
diabetic patients on Fridays") gives no rival name.

In English the check binds a statement's one amount, percentage, date, time or weekday (a
statement with two, such as "between three months and one month before", is left alone), never
names:
English capitalizes far more words than names, and on RAGTruth's English web passages (product
names, key combinations, addresses in run-on sentences) binding names contradicted faithful
statements by the hundred (answer F1 0.700 -> 0.643 with it). Without names, turning the check on
for English left the RAGTruth dev answer F1 at 0.699 (precision 0.599 -> 0.598, recall 0.838
-> 0.842; measured binding every value of a statement, which fires more often than binding
its one value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import DIMENSIONS, Value
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Unit,
    index_context,
    quote,
)
from guardrail.lang.context import current_language
from guardrail.lang.registry import language
from guardrail.text.stemming import stem
from guardrail.text.tokens import words as _words

__all__ = ["Part", "cut", "parts", "rebound"]

#: Kinds of value whose binding is checked (a year is too often the whole text's).
_KINDS = frozenset({"name", "quantity", "money", "percent", "date", "time", "weekday"})
_ENGLISH_COORDINATORS = frozenset({"and", "or", "but", "whereas", "while"})
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty".split()
)
#: Words of a name too general to tell two names apart.
_GENERIC = frozenset(
    "the of and a an de la le van von der den di da do dr mr mrs ms frau herr".split()
)


@dataclass(frozen=True)
class Part:
    """One part of a passage sentence: its text, its values and its matching unit."""

    text: str
    values: tuple[Value, ...]
    unit: Unit

    def holds(self, term: Term) -> bool:
        return self.unit.holds(term)


def _coordinators() -> frozenset[str]:
    lang = language(current_language())
    return _ENGLISH_COORDINATORS | (lang.coordinators if lang is not None else frozenset())


def cut(text: str, breaks: re.Pattern[str], *, clock_parts: bool = False) -> list[str]:
    """``text`` cut at ``breaks`` where a sentence moves to its next part; never before a
    number (a list of values: "1 et 2", "week 10 and week 14") nor before a word the part
    just said ("one or two days"). With ``clock_parts``, a clock time that opens a part with
    words of its own does open one when the part before it also says for what its own time
    holds ("09:00 to 20:00 Monday to Friday *and 10:00 to 16:00 on Saturdays*"; not "9am to
    12pm and 2pm to 5pm on weekdays", where "on weekdays" is both parts')."""
    out: list[str] = []
    at = 0
    for m in breaks.finditer(text):
        after = text[m.end() :].split(maxsplit=1)
        before = text[at : m.start()].lower().split()[-2:]
        nxt = after[0].lower() if after else ""
        timed = (
            clock_parts
            and _CLOCK_PART.match(text, m.end()) is not None
            and _QUALIFIED.search(text[at : m.start()]) is not None
        )
        if (nxt[:1].isdigit() and not timed) or nxt in _NUMBER_WORDS or nxt in before:
            continue
        out.append(text[at : m.start()])
        at = m.end()
    out.append(text[at:])
    return [p for p in out if p.strip()]


#: A clock time that opens a part of a listing sentence, with words of its own after it.
_CLOCK_PART = re.compile(
    r"\d{1,2}(?:[:.]\d{2}\s*(?:[ap]\.?m\.?)?|\s*[ap]\.?m\.?)\b[^,;]*?\b[^\W\d]{3,}", re.I
)


#: A clock time followed by words of its own to the end of its part ("20:00 Monday to
#: Friday"): the part before a break says for what its time holds, so the next part may too.
_QUALIFIED = re.compile(r"\d(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?\s+(?:[^\W\d]+\s*){1,}$", re.I)


def _pieces(text: str, coordinators: frozenset[str]) -> list[str]:
    """``text`` cut into its parts, each without the coordinator that opens it."""
    joined = "|".join(re.escape(c) for c in sorted(coordinators, key=len, reverse=True))
    breaks = re.compile(rf"\s*[,;:]\s+|\s+[-–—]\s+|\s+(?:{joined})\s+", re.IGNORECASE)
    cleaned = []
    for piece in cut(text, breaks):
        words = piece.split()
        while words and words[0].lower() in coordinators:
            words = words[1:]
        if words:
            cleaned.append(" ".join(words))
    return cleaned


def parts(index: ContextIndex, lex: Lexicon, values_of: Callable[[str], list[Value]]) -> list[Part]:
    """The parts of every sentence of the passage."""
    coordinators = _coordinators()
    seen: set[int] = set()
    out: list[Part] = []
    for unit in index.units:
        if unit.sentence in seen:
            continue  # the first unit of a sentence is the sentence itself
        seen.add(unit.sentence)
        for piece in _pieces(unit.text, coordinators):
            found = index_context(piece, lex).units
            if found:
                out.append(Part(piece, tuple(values_of(piece)), found[0]))
    return out


def _own(value: Value) -> set[str]:
    return {w for w in _words(value.text or value.surface) if w not in _GENERIC and len(w) > 1}


def _alike(a: Value, b: Value) -> bool:
    """Values of one kind that may be compared: one dimension, or a count of no known unit
    on either side ("volet 3" / "volets 1 et 2")."""
    if a.kind != b.kind:
        return False
    if a.kind == "name" or a.comparable(b):
        return True
    return a.kind == "quantity" and a.key not in DIMENSIONS and b.key not in DIMENSIONS


def _same(a: Value, b: Value) -> bool:
    if a.kind == "name" and b.kind == "name":
        return bool(_own(a) & _own(b))
    return _alike(a, b) and a.same(b)


def _rival(a: Value, b: Value) -> bool:
    return _alike(a, b) and not _same(a, b)


def rebound(
    statement: str,
    stated: Sequence[Value],
    assessment: Assessment,
    parts_of: Callable[[], Sequence[Part]],
    lex: Lexicon,
) -> Finding | None:
    """Contradicted when the passage gives one of the statement's values in a part about
    something else, and one of its words only in a part with another value of that kind;
    ``None`` otherwise (see the module docstring). ``parts_of`` gives the passage's parts
    (:func:`parts`), asked for only when the check applies."""
    if assessment.negations or not assessment.terms:
        return None
    english = language(current_language()) is None
    values = [v for v in stated if v.kind in _KINDS and not (english and v.kind == "name")]
    if not values or (english and len(values) > 1):
        return None  # English: one value only ("between three months and one month before")
    all_parts = parts_of()
    if len(all_parts) < 2:
        return None
    said_values = {w for v in values for w in _words(v.surface)}
    terms = [
        t
        for t in assessment.terms
        if not t.light
        and t.number is None
        and not set(_words(t.surface)) & said_values
        and lex.is_content(t.surface.lower())
    ]
    said = {t.stem for t in assessment.terms} | {k for t in assessment.terms for k in t.same}
    own_parts = [set(_words(p)) for p in _pieces(statement, _coordinators())]
    for value in values:
        with_value = [p for p in all_parts if any(_same(value, w) for w in p.values)]
        if not with_value or not all(_says_more(p, said, lex) for p in with_value):
            continue
        value_words = set(_words(value.surface))
        for term in terms:
            term_words = set(_words(term.surface))
            if not any(value_words <= p and term_words <= p for p in own_parts):
                continue  # bound in two clauses of the statement ("c'est X, qui ... ensuite")
            with_term = [p for p in all_parts if p.holds(term)]
            if len(with_term) != 1 or with_term[0] in with_value or with_term[0].unit.scopes:
                continue  # a part that negates ("n'est saisi qu'ensuite") binds nothing plainly
            if any(p.holds(t) and not with_term[0].holds(t) for p in with_value for t in terms):
                continue  # the value's part holds more of the statement than the shared frame
            rivals = [w for w in with_term[0].values if _rival(value, w)]
            if rivals:
                return Finding(
                    Support.CONTRADICTED,
                    f"The context gives {rivals[0].surface} with {term.surface}, and "
                    f"{value.surface} with something else: {quote(with_term[0].text)}",
                )
    return None


#: Content words (values aside) a part must hold to be about something of its own: "puis
#: de 50 % au-delà" goes on with the part before it.
_OWN_WORDS = 2


def _says_more(part: Part, said: set[str], lex: Lexicon) -> bool:
    """Whether ``part`` is about something of its own: :data:`_OWN_WORDS` content words (its
    values aside), one of them a word the statement does not have."""
    valued = {w for v in part.values for w in _words(v.surface)}
    content = [
        w
        for w in _words(part.text)
        if lex.is_content(w) and w not in valued and not w[:1].isdigit()
    ]
    return len(content) >= _OWN_WORDS and any(stem(w) not in said for w in content)
