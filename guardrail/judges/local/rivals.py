"""A number the context gives for another case: the statement's frame is stated elsewhere.

The lexical match picks the context unit that shares the most words with the statement, and a
number shares words too. In a passage that gives one value per case — "The children's ward is
on the third floor. The maternity ward is on the fifth floor." — the statement "The
children's ward is on the *fifth* floor." matches the second sentence best (ward, fifth,
floor) and reads as stated. This check reads the statement the other way round: its *frame*
(every content word that is not a number, a unit of measure or a light verb) against each
unit, its *numbers* (digits, number words, ordinals, "twice") apart:

* the **frame unit** is the one sentence that holds every frame word (at least two), in any
  form ("teaches" / "taught"), its subject possibly through "it" or "they" when the sentence
  before names it;
* it lacks a number of the statement that another unit gives (the passage states it for
  another case; a number it never states is the value checks' to judge), and gives a number
  the statement does not have;
* every unit that holds the missing numbers holds no frame word the frame unit lacks
  ("Please *arrive* at 7:30 am." against "Blood tests are taken between 7 am and 10 am." for
  "You should arrive at 7:30 am for your blood test.": each holds a part of the frame).

Then the context states the statement's case with another number: the statement is
contradicted, or supported when it denies that number. Anything short of that — no frame
unit, two of them, no rival number — returns ``None`` and the verifier decides as before.
Names are not read this way: in long answers a name is mostly the subject a later sentence's
pronoun stands for, so the unit without it is no rival. Statements longer than
:data:`MAX_TERMS` content words, and those that cite the sources' numbering ("passage 3"),
are left alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import tables
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Unit,
    quote,
)

__all__ = ["rival_value"]

#: Fewest frame words a statement must have to be read this way.
MIN_FRAME = 2
#: Longest statement (content words) read this way: a long claim's frame is many claims.
MAX_TERMS = 10
#: A reference to the sources' numbering ("passage 3", "step 4").
_NUMBERING = re.compile(
    r"\b(?:passages?|steps?|sources?|documents?)\s+(?:\d|one|two|three|four|five|six)\b",
    re.IGNORECASE,
)
#: Shortest shared prefix that makes two words one ("monthly" / "month", "taught" aside).
_PREFIX = 5


#: Words that measure or place a number rather than frame it ("am", "euros", "times", a month
#: or a weekday), besides the units the value reader knows ("days", "mg").
_MEASURES = frozenset(
    "am pm euro euros dollar dollars percent times o'clock january february march april may "
    "june july august september october november december monday tuesday wednesday thursday "
    "friday saturday sunday".split()
)


@functools.cache
def _units() -> frozenset[str]:
    return frozenset(tables("en").units) | _MEASURES


def _is_value(term: Term) -> bool:
    """A number or an ordinal. (Names are left out: in long answers a name is mostly the
    subject a later sentence's pronoun stands for, so the unit without it is no rival.)"""
    return term.number is not None


def _is_measure(term: Term) -> bool:
    return term.surface.lower() in _units()


def _holds(unit: Unit, term: Term, lex: Lexicon) -> bool:
    """The unit uses the term's word, a word of its family, a word sharing a long prefix, or
    another form of the same verb ("teaches" / "taught")."""
    if term.stem in unit.stems or not term.same.isdisjoint(unit.same):
        return True
    if term.number is not None and term.number in unit.numbers:
        return True
    key = term.stem
    if len(key) >= _PREFIX and any(
        len(s) >= _PREFIX and s[:_PREFIX] == key[:_PREFIX] for s in unit.stems
    ):
        return True
    base = _base(term.surface.lower(), lex)
    return base is not None and base in _bases(unit.text, lex)


def _base(word: str, lex: Lexicon) -> str | None:
    found = lex.morph.analyze(word)
    return None if found is None else found[0]


#: Verb bases per (lexicon, unit text), the most recent kept.
_BASES: dict[tuple[int, str], frozenset[str]] = {}
_BASES_KEPT = 4096


def _bases(text: str, lex: Lexicon) -> frozenset[str]:
    """The verb bases of a unit's words."""
    key = (id(lex), text)
    found = _BASES.get(key)
    if found is None:
        words = re.findall(r"[a-z]+", text.lower())
        found = frozenset(b for b in (_base(w, lex) for w in words) if b is not None)
        if len(_BASES) >= _BASES_KEPT:
            _BASES.pop(next(iter(_BASES)))
        _BASES[key] = found
    return found


def _has_value(unit: Unit, term: Term) -> bool:
    return term.number in unit.numbers


def _rival(unit: Unit, missing: Sequence[Term], values: Sequence[Term]) -> bool:
    """The unit gives a number the statement does not have."""
    numbers = {t.number for t in values if t.number is not None}
    return any(t.number is not None for t in missing) and bool(unit.numbers - numbers)


#: Subject pronouns through which a sentence names the previous sentence's subject.
_PRONOUN = re.compile(r"\b(?:it|they)\b", re.IGNORECASE)


def _frame_held(unit: Unit, frame: Sequence[Term], index: ContextIndex, lex: Lexicon) -> int:
    """How many frame words the unit holds. The statement's first frame word (its subject)
    counts as held through "it" or "they" when the sentence before the unit names it ("The
    pharmacy is open ... On Saturdays it closes at 1 pm.")."""
    found = sum(_holds(unit, t, lex) for t in frame)
    subject = frame[0]
    if found == len(frame) - 1 and not _holds(unit, subject, lex) and _PRONOUN.search(unit.text):
        before = [u for u in index.units if u.sentence == unit.sentence - 1]
        if any(_holds(u, subject, lex) for u in before):
            return len(frame)
    return found


def rival_value(assessment: Assessment, index: ContextIndex, lex: Lexicon) -> Finding | None:
    """Contradicted when the unit that states the statement's frame gives another value
    (see the module docstring); supported when the statement denies it; else ``None``."""
    terms = assessment.terms
    if not terms or len(terms) > MAX_TERMS or len(index.units) < 2:
        return None
    if _NUMBERING.search(assessment.core):
        return None  # "passage 3", "step 4": the numbering of the sources, not a value
    first = assessment.core.split(maxsplit=1)[0] if assessment.core.strip() else ""
    # a capitalised first word is a list marker or a sentence's first word, not a value
    values = [t for t in terms if _is_value(t) and t.surface != first]
    frame = [t for t in terms if t not in values and not t.light and not _is_measure(t)]
    if not values or len(frame) < MIN_FRAME:
        return None
    held = [_frame_held(u, frame, index, lex) for u in index.units]
    leaders = [u for u, n in zip(index.units, held, strict=True) if n == len(frame)]
    if len({u.sentence for u in leaders}) != 1:
        return None  # none or two sentences state the frame: which case is meant is unclear
    unit = leaders[0]
    missing = [t for t in values if not _has_value(unit, t)]
    if not missing or not _rival(unit, missing, values):
        return None
    if not all(any(_has_value(o, t) for o in index.units if o is not unit) for t in missing):
        return None  # a value the context never gives is the value checks' to judge
    framed = {t.stem for t in frame}
    for other in index.units:
        if all(_has_value(other, t) for t in missing) and any(
            _holds(other, t, lex) and t.stem not in framed for t in frame
        ):
            return None  # the value's own sentence holds frame words the unit lacks
    said = ", ".join(t.surface for t in missing)
    if assessment.negations % 2 == 1:
        return Finding(
            Support.SUPPORTED,
            f"The context gives another value than {said} for this, as the statement says: "
            f"{quote(unit.text)}",
        )
    return Finding(
        Support.CONTRADICTED,
        f"The context gives another value than {said} for this: {quote(unit.text)}",
    )
