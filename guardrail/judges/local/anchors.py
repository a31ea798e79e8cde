"""Support from values: a reworded statement whose values its sentence gives, one for one.

A faithful answer in the user's own words shares few words with the passage ("Votre argent
vous est rendu sous deux semaines" against "Le remboursement intervient dans un délai de 14
jours"), so the lexical match leaves it unsupported. Its values are what it cannot reword
without changing the fact. When the best-matching sentence of the passage gives every value
the statement states, gives no other value of those kinds, and the statement keeps that
sentence's polarity, the statement is supported.

What keeps this from supporting a wrong answer:

- a value the sentence does not give (another number, date, duration or amount) anchors
  nothing, and the conflict check reads it first;
- a sentence with two values of one kind ("15 jours pour les employés et 30 jours pour les
  cadres") anchors one only in its own part, when the statement names that part's case
  ("employé") and no word of another part's;
- names and numbers in no measured unit ("appelez le 15", "die 112 anrufen") are no anchor
  alone: they fit many sentences;
- a negation or opposite word between statement and sentence, a bound turned the other way
  ("more than 8" against "not more than 8") or a name the passage never gives blocks it;
- a value alone ("Half past eleven at night.") says nothing of which fact it belongs to, and
  a value that another sentence gives a rival of, while that sentence matches the statement's
  other words as well, may belong to that sentence's fact
  (:meth:`~guardrail.judges.local.conflict.ConflictCheck.anchored` reads both).

A value counts as given when the sentence says it another way: in another unit of its
dimension ("48 Stunden" for "zwei Tage"), as a bare count in the statement's own unit
("superar las 80" for "ochenta horas"), or as a day count in a compound ("20 vakantiedagen"
for "twintig dagen").

The rule only turns an undecided statement into a supported one: a contradiction found by
the conflict check, or a model verdict, stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from guardrail.judges.local.bindings import Part
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import (
    DIMENSIONS,
    DURATION_DIMS,
    MINUTES_PER_DAY,
    Value,
    bound_against,
    tables,
)
from guardrail.judges.local.verify import Assessment, Finding, Support, Term, Unit, quote
from guardrail.lang.context import current_language

#: Value keys that name a measured dimension: counts in these compare only with their kind.
_MEASURED = DIMENSIONS | DURATION_DIMS


def anchored(
    assessment: Assessment,
    stated: Sequence[Value],
    found: Sequence[Value],
    lex: Lexicon,
    parts: Callable[[], Sequence[Part]] = tuple,
) -> Finding | None:
    """Supported when the best unit's values ``found`` give every value of ``stated`` (the
    statement's), as the module describes; ``None`` otherwise. ``parts`` gives the parts of
    the best unit's sentence (:func:`~guardrail.judges.local.bindings.parts`), read when the
    sentence gives another value of a stated value's kind."""
    best = assessment.best
    values = [v for v in stated if v.kind != "ordinal"]
    if best is None or not values or all(_weak(v) for v in values):
        return None
    if not all(any(gives(f, v) for f in found) for v in values):
        return None
    # a rival the statement gives too is its own value ("expire le 15 mars ... le 14 janvier")
    rivals = [f for f in found if not any(v.comparable(f) and v.same(f) for v in values)]
    rivalled = [v for v in values if any(v.comparable(f) and not v.same(f) for f in rivals)]
    value_words = {w.lower() for v in values for w in v.surface.split()}
    words = [
        t for t in assessment.terms if t.number is None and t.surface.lower() not in value_words
    ]
    if rivalled and not all(_own_part(v, words, parts()) for v in rivalled):
        return None  # the sentence gives another value of the kind, for the statement's case
    if any(bound_against(v, f) for v in values for f in found):
        return None
    if assessment.parity == 1 or _unknown_name(assessment, lex):
        return None
    return Finding(Support.SUPPORTED, f"The context gives the same values: {quote(best.unit.text)}")


def about(assessment: Assessment, unit: Unit) -> bool:
    """The statement shares a word other than its values with ``unit``: a bare value
    ("Half past eleven at night.") says nothing of which fact it belongs to."""
    return any(t.number is None and unit.holds(t) for t in assessment.terms)


def gives(found: Value, value: Value) -> bool:
    """``found`` gives ``value``: the same value, or the same count where neither names a
    measured unit ("999" for "999 straight away"), or months said in days or weeks; "12
    Jahren" is no "zwölf" of anything."""
    if value.comparable(found):
        return value.same(found)
    if value.kind != "quantity" or found.kind != "quantity" or value.amount is None:
        return False
    if {value.key, found.key} == {"months", "minutes"} and found.amount is not None:
        return months_in_days(value, found) and not bound_against(value, found)
    if found.amount is not None and (value.key in _MEASURED) != (found.key in _MEASURED):
        return _counted_in(value, found) and not bound_against(value, found)
    if value.key in _MEASURED or found.key in _MEASURED:
        return False
    return value.amount == found.amount and not bound_against(value, found)


def _counted_in(a: Value, b: Value) -> bool:
    """One value measured, the other a count of that measure's unit: a bare count ("superar
    las 80" for "ochenta horas", "ab 6" for "ab sechs Jahren") or a compound naming it
    ("30 Urlaubstage" for "30 Tage", "20 vakantiedagen" for "twintig dagen")."""
    measured, count = (a, b) if a.key in _MEASURED else (b, a)
    assert measured.amount is not None and count.amount is not None
    units = tables(current_language()).units
    if count.key:
        per = [p for w, (d, p) in units.items() if d == measured.key and _compound(count.key, w)]
    else:  # in the measured value's own unit: "2" is no "quattordici giorni" (two weeks)
        said = [units.get(w.lower()) for w in measured.surface.split()]
        per = [u[1] for u in said if u is not None and u[0] == measured.key]
    return any(abs(count.amount * p - measured.amount) < 1e-6 for p in per)


#: Letters a compound keeps before the unit word it ends in ("urlaubs" + "tage").
_COMPOUND_HEAD = 3


def _compound(key: str, unit: str) -> bool:
    """``key`` is a compound ending in the unit word ``unit`` ("urlaubstage", "tage")."""
    return len(key) - len(unit) >= _COMPOUND_HEAD and key.endswith(unit) and unit.isalpha()


#: The days a month may have.
_MONTH_DAYS = (28, 31)


def months_in_days(a: Value, b: Value) -> bool:
    """A count of months and a count of days (or weeks) that span it: "zwei Monate" and
    "sechzig Tage", "drei Monate" and "zwölf Wochen" (a month is 28 to 31 days)."""
    months, minutes = (a, b) if a.key == "months" else (b, a)
    assert months.amount is not None and minutes.amount is not None
    days = minutes.amount / MINUTES_PER_DAY
    low, high = (months.amount * n for n in _MONTH_DAYS)
    return low <= days <= high


def _own_part(value: Value, terms: Sequence[Term], parts: Sequence[Part]) -> bool:
    """The sentence gives ``value`` in one part and rival values in others ("15 jours pour
    les employés et 30 jours pour les cadres"), and the statement names its part's case: a
    word of that part no rival part has ("employé"), and no word only a rival part has.
    ``terms`` are the statement's words but its values'."""
    mine = [p for p in parts if any(gives(f, value) for f in p.values)]
    others = [
        p
        for p in parts
        if p not in mine and any(value.comparable(f) and not value.same(f) for f in p.values)
    ]
    if len(mine) != 1 or not others:
        return False
    own = [t for t in terms if mine[0].holds(t) and not any(o.holds(t) for o in others)]
    theirs = [t for t in terms if not mine[0].holds(t) and any(o.holds(t) for o in others)]
    return bool(own) and not theirs


def _weak(value: Value) -> bool:
    """A value that anchors nothing alone: a name, or a number in no measured unit ("le 15",
    "die 112 anrufen", "20 Urlaubstage"): the word after a number is too often no unit."""
    return value.kind == "name" or (value.kind == "quantity" and value.key not in _MEASURED)


def _unknown_name(assessment: Assessment, lex: Lexicon) -> bool:
    """The statement has a name (or a word written like one) the passage never uses, and the
    language's dictionary does not know it as an ordinary word."""
    known = lex.dictionary
    return any(
        not elsewhere
        and (term.entity or term.namelike)
        and not (known is not None and known(term.surface.lower()))
        for term, elsewhere in zip(assessment.terms, assessment.elsewhere, strict=True)
    )
