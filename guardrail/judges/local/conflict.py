"""The conflict check: does the context state a *different* value than the statement?

Every offline verifier (and the cascade's screen) runs it before its own decision
(:meth:`~guardrail.judges.local.verifiers.LexicalVerifier.check`), so a clear contradiction is
decided the same way whichever verifier is chosen:

1. The statement is matched to its best context unit by the rules' matching pass
   (:func:`~guardrail.judges.local.verify.assess`). The unit must cover a good part of the
   statement *apart from its values* (:data:`FRAME_COVERAGE` of its weight): the statement and
   the unit talk about the same thing.
2. Values are read from both (:mod:`~guardrail.judges.local.values`): amounts with units,
   money, percentages, times, dates, years, weekdays, ordinals, names. A statement value
   *conflicts* when the unit states values of the same kind and dimension, none equal to it,
   and the value occurs nowhere in the context. A name conflicts only when the unit puts another
   name in its place (the two texts aligned word by word). Spellings are normalized first, so
   "1,200" = "1200", "two weeks" = "14 days", "6 pm" = "18:00" never conflict.
3. Polarity composes: negations in the statement (and "It is not true that" framing), negations
   in the unit that govern the statement's words, and opposite words ("closed" for "open") are
   counted. An even count with a conflict means *contradicted* ("context says Warsaw, not
   Vienna"); an odd count means the statement denies something false, so it is *supported*
   ("does not last 30 days" when the context says 14).

A statement without values, or whose best unit covers too little of it, is left to the verifier.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from guardrail.judges.local import (
    advised,
    anchors,
    bindings,
    bounds,
    contrast,
    entities,
    weekdays,
)
from guardrail.judges.local.comparatives import Comparisons
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import (
    DURATION_DIMS,
    MINUTES_PER_DAY,
    Value,
    bound_against,
    extract,
    rate_periods,
)
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Unit,
    _Match,
    _match,
    negation_positions,
    negation_scopes,
    quote,
    unit_parity,
)
from guardrail.lang.context import current_language
from guardrail.lang.registry import language
from guardrail.text.stemming import stem

#: Share of the statement's weight (values left out) its best context unit must cover.
FRAME_COVERAGE = 0.5
#: Statements whose values one context's check remembers.
_STATEMENTS_KEPT = 4096
#: Fewest words besides the values that must match, so "It is Paris." never decides.
FRAME_WORDS = 1


@dataclass(frozen=True)
class Conflict:
    """A statement value and the context unit's values of the same kind that differ from it."""

    stated: Value
    found: tuple[Value, ...]
    unit: str
    #: The statement denies the conflicting claim (odd polarity): it is supported.
    denied: bool

    @property
    def says(self) -> str:
        """What the context says instead ("14 days", "Warsaw")."""
        return " / ".join(dict.fromkeys(v.surface for v in self.found))

    def finding(self) -> Finding:
        """The verdict: contradicted, or supported when the statement denies the false value."""
        if self.denied:
            return Finding(
                Support.SUPPORTED,
                f"The context says {self.says}, not {self.stated.surface}, as the statement "
                f"says: {quote(self.unit)}",
            )
        return Finding(
            Support.CONTRADICTED,
            f"Conflicting value: the context says {self.says}, not {self.stated.surface}: "
            f"{quote(self.unit)}",
        )


class ConflictCheck:
    """Finds value conflicts between statements and one context (values cached per unit)."""

    def __init__(self, index: ContextIndex, lex: Lexicon) -> None:
        self.index = index
        self.lex = lex
        self._unit_values: dict[int, list[Value]] = {}
        self._context_values: list[Value] | None = None
        self._parts: list[bindings.Part] | None = None
        self._words: set[str] | None = None
        self._initials: set[str] | None = None
        self._stems: set[str] | None = None
        self._periods: set[tuple[str, float | None]] | None = None
        self._comparisons = Comparisons(lex)
        self._stated: dict[str, list[Value]] = {}

    def common(self, word: str) -> bool:
        """An ordinary word, so a capitalized first word is not taken for a name."""
        lex = self.lex
        return (
            lex.is_known_word(word)
            or word in self.index.lower_vocab
            or (lex.dictionary is not None and lex.dictionary(word))
        )

    def stated(self, statement: str) -> list[Value]:
        """The values ``statement`` asserts (remembered: variants repeat their factoid's)."""
        found = self._stated.get(statement)
        if found is None:
            found = extract(statement, self.common)
            if len(self._stated) < _STATEMENTS_KEPT:
                self._stated[statement] = found
        return found

    def values_of(self, unit: Unit) -> list[Value]:
        key = id(unit)
        found = self._unit_values.get(key)
        if found is None:
            found = extract(unit.text, self.common)
            self._unit_values[key] = found
        return found

    @property
    def context_values(self) -> list[Value]:
        """Every value of the whole context (whole-sentence units only)."""
        if self._context_values is None:
            seen: set[int] = set()
            out: list[Value] = []
            for unit in self.index.units:
                if unit.sentence in seen:
                    continue  # the first unit of a sentence is the sentence itself
                seen.add(unit.sentence)
                out.extend(self.values_of(unit))
            self._context_values = out
        return self._context_values

    @property
    def parts(self) -> list[bindings.Part]:
        """The parts of the context's sentences (see :mod:`~guardrail.judges.local.bindings`)."""
        if self._parts is None:
            self._parts = bindings.parts(
                self.index, self.lex, lambda text: extract(text, self.common)
            )
        return self._parts

    @property
    def words(self) -> set[str]:
        """The context's words, lowercased (to find a name anywhere in it)."""
        if self._words is None:
            self._words = {w for u in self.index.units for w in _words(u.text)}
        return self._words

    def check(
        self, statement: str, assessment: Assessment, reply: Sequence[str] = ()
    ) -> Conflict | None:
        """The first conflicting value of ``statement`` (whose matching pass is
        ``assessment``), or ``None``. ``reply``: the reply words of a statement read with its
        question; a value none of them says is the question's own ("the 7am flight" in "Which
        terminal for the 7am flight?"), what the user said and not what the reply claims."""
        best = assessment.best
        if best is None or not assessment.terms:
            return None
        stated = self.stated(statement)
        if not stated:
            return None
        if any(_day(v) is not None for v in stated):
            # "open from Tuesday to Sunday": a day outside is another value, one inside not
            outside = self._outside_days(stated, assessment)
            if outside is not None:
                return outside
            if weekdays.ranges(self.values_of(best.unit), best.unit.text):
                stated = [v for v in stated if _day(v) is None]
        unit = best.unit
        found = self.values_of(unit)
        candidates = [
            v for v in stated if not self._anywhere(v) and not _said_by_question(v.surface, reply)
        ]
        if not candidates:
            return None
        # a value the context states in another spelling ("a day" / "24 hours") is no frame
        # word the unit lacks
        value_words = {_amount_words(v, self.lex) for v in candidates} | {
            _amount_words(v, self.lex)
            for v in [*stated, *_given_periods(statement, unit.text, found)[0]]
            if any(_is_value(t, {v.surface.lower()}) for t in best.missing)
        }
        if not _frame_matches(best, assessment, value_words):
            return None
        for value in candidates:
            rivals = self._rivals(value, found, statement, unit.text)
            admitted = all(r.bound for r in rivals) and any(_within(value, r) for r in rivals)
            if rivals and not admitted and not any(_agrees(value, r) for r in rivals):
                # bounds already fold in the negations and comparatives around an amount
                # ("not more than 20" is at most 20): a clash of bounds alone is never denied
                bounds_only = any(replace(value, bound=0).same(replace(r, bound=0)) for r in rivals)
                denied = (
                    not bounds_only
                    and (
                        _parity(assessment, unit)
                        + _denying_nothing(assessment, unit, value, self.lex)
                    )
                    % 2
                    == 1
                    and not _denies_a_clause(statement, assessment)
                )
                return Conflict(value, tuple(rivals), unit.text, denied)
        return None

    def _outside_days(self, stated: list[Value], assessment: Assessment) -> Conflict | None:
        """A stated weekday outside the day range of a unit that says the rest of the
        statement (the best unit first, then any other with a range of days)."""
        best = assessment.best
        assert best is not None
        units = [best.unit, *(u for u in self.index.units if u is not best.unit)]
        for unit in units:
            found = self.values_of(unit)
            days = weekdays.ranges(found, unit.text)
            if not days:
                continue
            outside = [v for v in stated if _day(v) is not None and not _day_in(v, days, found)]
            if not outside:
                return None  # the range that holds the day is the unit's own
            match = (
                best
                if unit is best.unit
                else _match(unit, assessment.terms, assessment.weights, assessment.elsewhere)
            )
            if _frame_matches(match, assessment, {v.surface.lower() for v in outside}):
                ends = tuple(f for f in found if f.kind == "weekday")
                return Conflict(outside[0], ends, unit.text, _parity(assessment, unit) == 1)
        return None

    def compared(self, statement: str, assessment: Assessment) -> Finding | None:
        """Supported or contradicted when the statement and its best unit compare the same two
        things on one scale ("the old model is heavier than the new one" / "the new model is
        lighter than the old one": supported; the sides or the direction reversed:
        contradicted); see :mod:`~guardrail.judges.local.comparatives`."""
        best = assessment.best
        if best is None:
            return None
        kind = (
            bounds.finding(statement, assessment, self.stated, self.values_of)
            or entities.moved(statement, assessment, self.stated, self.values_of, self.index.units)
            or bindings.rebound(
                statement, self.stated(statement), assessment, lambda: self.parts, self.lex
            )
            or contrast.swapped(
                assessment.tokens, self.index.units, best.unit, self.lex, framing=assessment.framing
            )
            or advised.advised_against(assessment, self.index.units, self.lex)
        )  # conflicts of kind (pay / free, immediately / wait), facts moved to another name,
        # a contrast set the other way round ("at B, not at A" for "at A, not at B"), and a
        # medicine the passage only advises against given as the one to take
        if kind is not None:
            return kind
        agree = self._comparisons.agree(statement, best.unit.text)
        if agree is None:
            return None
        if agree:
            return Finding(Support.SUPPORTED, f"The context states: {quote(best.unit.text)}")
        reason = f"The context compares them the other way: {quote(best.unit.text)}"
        return Finding(Support.CONTRADICTED, reason)

    def agrees(self, statement: str, assessment: Assessment) -> Finding | None:
        """Supported (or, reversed, contradicted) when the best unit matches the statement
        word for word except for values it states in another spelling ("18:00" for "6 pm",
        "1,200" for "1200"): the lexical match misses what the values say is the same."""
        best = assessment.best
        if best is None or not best.missing:
            return None
        stated = self.stated(statement)
        found = self.values_of(best.unit)
        equal = {
            v.surface.lower() for v in stated if any(v.comparable(f) and v.same(f) for f in found)
        }
        if not equal or not all(_is_value(t, equal) for t in best.missing):
            return None
        if any(bound_against(v, f) for v in stated for f in found):
            return None  # "more than 8" against "not more than 8": the bounds decide, not this
        if _parity(assessment, best.unit) == 1:
            reason = f"The context says the opposite: {quote(best.unit.text)}"
            return Finding(Support.CONTRADICTED, reason)
        return Finding(Support.SUPPORTED, f"The context states: {quote(best.unit.text)}")

    def anchored(self, statement: str, assessment: Assessment) -> Finding | None:
        """Supported when the best unit gives every value ``statement`` states and no other
        of their kinds (see :mod:`~guardrail.judges.local.anchors`)."""
        best = assessment.best
        if best is None:
            return None
        unit = best.unit
        # a name whose words the best sentence has (read there as a common noun: "nach dem
        # letzten Durchfall") is given by it; a name from another sentence still blocks
        words = set(_words(unit.text))
        stated = [
            v
            for v in self.stated(statement)
            if v.kind != "name" or not all(w in words for w in _words(v.text))
        ]
        if self._told_elsewhere(stated, assessment, unit):
            return None
        if _bare(statement, stated) and not anchors.about(assessment, unit):
            return None  # "Half past eleven at night.": a value alone, of no named fact
        # a rate's period ("par jour") that the sentence gives as a length of time ("par 24
        # heures") anchors too; one it does not give is left to the words, as before
        found = self.values_of(unit)
        given, theirs = _given_periods(assessment.core or statement, unit.text, found)
        return anchors.anchored(
            assessment,
            [*stated, *given],
            [*found, *theirs],
            self.lex,
            lambda: [p for p in self.parts if p.text in unit.text],
        )

    def _told_elsewhere(self, stated: Sequence[Value], a: Assessment, best: Unit) -> bool:
        """Another sentence of the passage gives a different value of a stated value's kind,
        not the stated one, and holds as many of the statement's other words as the best
        sentence, one of them a word the best lacks: the statement's values may belong to
        another fact."""
        words = [t for t in a.terms if t.number is None]
        held = {id(t) for t in words if best.holds(t)}
        for unit in self.index.units:
            own = [t for t in words if unit.holds(t)]
            if unit is best or len(own) < len(held) or all(id(t) in held for t in own):
                continue
            found = self.values_of(unit)
            for v in stated:
                kind = [f for f in found if v.comparable(f)]
                if kind and not any(v.same(f) for f in kind):
                    return True
        return False

    def _anywhere(self, value: Value) -> bool:
        """The context states ``value`` somewhere (then it is not a conflict).

        A name counts as stated when the context has one of its own words ("Security Council"
        for "UN Security Council", "Nakatani" for "Defense Minister Gen Nakatani") or spells
        it out ("United States" for "US"): a partial or abbreviated mention is far more often
        the same name than a rival one."""
        if value.kind == "name":
            names = _distinctive(" ".join(_words(value.text)))
            if not names:
                return False
            if any(
                w in self.words or stem(w) in self.stems
                for w in names
                if len(w) >= _NAME_WORD_CHARS
            ):
                return True
            return all(w in self.words for w in names) or (_acronym(value.surface) in self.initials)
        if value.kind == "quantity" and (value.key, value.amount) in self.periods:
            return True  # "in one day" for "6 capsules *al día*": the rate's period
        return any(value.comparable(v) and value.same(v) for v in self.context_values)

    @property
    def periods(self) -> set[tuple[str, float | None]]:
        """The periods of the context's rates ("per day", "al día"): one of the unit each."""
        if self._periods is None:
            self._periods = {
                (v.key, v.amount) for u in self.index.units for v in rate_periods(u.text)
            }
        return self._periods

    @property
    def initials(self) -> set[str]:
        """The initials of the context's names ("us" for "United States") and its dotted
        abbreviations ("us" for "U.S.")."""
        if self._initials is None:
            found = {
                "".join(w[0] for w in _distinctive(v.text) if w)
                for v in self.context_values
                if v.kind == "name" and len(v.text.split()) > 1
            }
            for unit in self.index.units:
                found.update(
                    m.group().replace(".", "").lower() for m in _DOTTED.finditer(unit.text)
                )
                if language(current_language()) is not None:
                    found.update(_spanning_initials(unit.text))
            self._initials = found
        return self._initials

    @property
    def stems(self) -> set[str]:
        """The stems of the context's words ("dab" for "dabbing")."""
        if self._stems is None:
            self._stems = {stem(w) for w in self.words}
        return self._stems

    def _rivals(
        self, value: Value, found: list[Value], statement: str, unit_text: str
    ) -> list[Value]:
        """The unit's values that ``value`` must equal to be supported."""
        same_kind = [v for v in found if value.comparable(v)] + _other_span(value, found)
        if value.kind != "name" or not same_kind:
            if value.kind == "quantity" and not value.key:
                # a bare number: no unit to know what it counts, but the same amount bound
                # the other way ("more than 8" / "not more than 8 tablets") is a rival
                return [v for v in found if bound_against(value, v)]
            return same_kind
        stated_words = set(_words(statement))
        others = [v for v in same_kind if not any(w in stated_words for w in _distinctive(v.text))]
        return [v for v in others if _same_slot(statement, value, unit_text, v)]


#: Shortest length of time in days that a count of months is compared with ("two months"
#: against "two weeks"; a number of minutes or hours is another fact's).
_SPAN_DAYS = 7


def _other_span(value: Value, found: Sequence[Value]) -> list[Value]:
    """Lengths of time of the unit in the other duration dimension than ``value`` (months
    against days and weeks): "about two months" against "within two weeks"."""
    if value.kind != "quantity" or value.key not in DURATION_DIMS:
        return []
    return [
        v
        for v in found
        if v.kind == "quantity"
        and {value.key, v.key} == DURATION_DIMS
        and min(_days(value), _days(v)) >= _SPAN_DAYS
    ]


def _days(value: Value) -> float:
    """A length of time in days (a month taken as 30)."""
    amount = value.amount or 0.0
    return amount * 30 if value.key == "months" else amount / MINUTES_PER_DAY


def _agrees(value: Value, rival: Value) -> bool:
    """``value`` is ``rival``'s: the same value, or months the days span."""
    if value.key == rival.key or value.kind != "quantity":
        return value.same(rival)
    # as in Value.same, a bound on one side only ("at least 2 months" / "60 days") agrees
    bounds_agree = not value.bound or not rival.bound or value.bound == rival.bound
    return bounds_agree and anchors.months_in_days(value, rival)


#: Shortest word of a name that, found in the context, makes the name count as stated there.
_NAME_WORD_CHARS = 3


#: Words before a name that say nothing of its role ("the" Arabian Peninsula / "the" UN).
_WEAK_BEFORE = frozenset("the a an and or of to".split())
#: Abbreviations written with dots ("U.S.", "U.N.").
_DOTTED = re.compile(r"\b(?:[A-Z]\.){2,}")
#: Lead-ins that wrap a statement without changing where its words stand.
_FRAMES = (["it", "is", "not", "true", "that"], ["it", "is", "true", "that"])
#: Words a rewritten stretch may hold besides the two names it swaps.
_SLOT_SLACK = 2


def _acronym(surface: str) -> str:
    """An all-capitals name as lower-case initials ("US", "U.S." -> "us"); "" otherwise."""
    letters = surface.replace(".", "")
    if 2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper():
        return letters.lower()
    return ""


#: Words that name a kind of place or body, not a particular one ("Sea", "University").
_GENERIC_NAME_WORDS = frozenset(
    "sea ocean river lake mount mountain university college city county state republic "
    "kingdom island islands company group inc ltd corporation organization organisation "
    "the of and".split()
)


#: A run of capitalized words over short lower-case ones ("Conselho Português para os
#: Refugiados", "Office français de l'immigration"): a body's name as it is abbreviated.
_SPANNING_NAME = re.compile(
    r"\b[A-ZÀ-Þ][\w'’-]*(?:\s+(?:[a-zà-ÿ'’]{1,4}\s+){0,2}[A-ZÀ-Þ][\w'’-]*)+"
)


def _spanning_initials(text: str) -> set[str]:
    """The initials of the capitalized words of each such run, in a language with a module:
    "cpr" for "Conselho Português para os Refugiados"; and of a capitalized word with the
    lower-case words after it, as an institution's name is written in running text: "ssn"
    for "Servizio sanitario nazionale", "sns" for "Serviço Nacional de Saúde"."""
    out: set[str] = set()
    for m in _SPANNING_NAME.finditer(text):
        capitals = [w for w in m.group().split() if w[:1].isupper()]
        if len(capitals) > 1:
            out.add("".join(w[0] for w in capitals).lower())
    words = re.findall(r"[^\W\d_][\w'’-]*", text)
    for i, word in enumerate(words):
        if not word[:1].isupper():
            continue
        run = [word]
        for later in words[i + 1 : i + 1 + _INITIALS_REACH]:
            if later[:1].isupper():
                break
            later = re.split(r"['’]", later)[-1]  # "d'allocations": "allocations"
            if len(later) > _LINK_CHARS:
                run.append(later)
            if len(run) > 1:
                out.add("".join(w[0] for w in run).lower())
    return out


#: Words after a capitalized word read for the initials of an institution's name.
_INITIALS_REACH = 4
#: The longest linking word left out of initials ("de", "des", "für").
_LINK_CHARS = 3


def _distinctive(name: str) -> list[str]:
    """A name's own words ("caspian" of "caspian sea")."""
    return [w for w in name.split() if w not in _GENERIC_NAME_WORDS]


def _said_by_question(surface: str, reply: Sequence[str]) -> bool:
    """A value (``surface``) of a statement read with its question that none of the reply's
    words say: it came from the question."""
    if not reply:
        return False
    said = {w for r in reply for w in _words(r)}
    return not any(w in said for w in _words(surface))


#: Words besides its values that a statement may have and still be a bare value.
_BARE_WORDS = 2


def _bare(statement: str, stated: Sequence[Value]) -> bool:
    """``statement`` is its values and at most :data:`_BARE_WORDS` other words ("Half past
    eleven at night.")."""
    rest = list(statement)
    for v in stated:
        rest[v.start : v.end] = " " * (v.end - v.start)
    return len(re.findall(r"\w+", "".join(rest))) <= _BARE_WORDS


def _words(text: str) -> list[str]:
    out: list[str] = []
    word: list[str] = []
    for ch in text.lower():
        if ch.isalnum():
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def _within(value: Value, bounded: Value) -> bool:
    """An exact amount the context's bound admits ("a 5 year visa" against "a visa of more
    than 3 years"): no other value, but one of those the bound allows."""
    if value.bound or not bounded.bound or value.amount is None or bounded.amount is None:
        return False
    if value.key != bounded.key and value.kind == "quantity":  # months against days
        return (_days(value) - _days(bounded)) * bounded.bound < 0
    return (value.amount - bounded.amount) * bounded.bound < 0


def _frame_matches(best: _Match, assessment: Assessment, value_words: set[str]) -> bool:
    """The best unit covers enough of the statement's words that are not values."""
    missing = {id(t) for t in best.missing}
    total = got = 0.0
    matched = 0
    for term, weight in zip(assessment.terms, assessment.weights, strict=True):
        if _is_value(term, value_words):
            continue
        total += weight
        if id(term) not in missing:
            got += weight
            matched += 1
    return matched >= FRAME_WORDS and total > 0 and got / total >= FRAME_COVERAGE


def _is_value(term: Term, value_words: set[str]) -> bool:
    """The term is part of one of the values being checked ("3,500" of "3,500 paintings")."""
    word = term.surface.lower()
    return any(
        word in _words(surface) or word in (w.rstrip(".") for w in surface.split())
        for surface in value_words
    )  # "30.07" of "30.07." (a day with its ordinal dot)


def _day(value: Value) -> int | None:
    """The weekday ``value`` names (0 = Monday), or None for any other value."""
    return int(value.amount) if value.kind == "weekday" and value.amount is not None else None


def _day_in(value: Value, days: list[weekdays.Span], found: list[Value]) -> bool:
    """The unit gives the day ``value`` names: inside one of its ranges, or named itself."""
    day = _day(value)
    return day is not None and (weekdays.covered(day, days) or any(_day(f) == day for f in found))


#: A reply that denies the question's clause on a condition ("Not if you give a month's
#: notice."): its "not" is the clause's, and the condition's values are stated, not denied.
_NOT_IF = re.compile(r"^\W*(?:no\W+)?not\s+(?:if|unless|when|once)\b", re.IGNORECASE)


def _denies_a_clause(statement: str, assessment: Assessment) -> bool:
    """Whether the statement's only negation is the "not" of "Not if ..." (English)."""
    return assessment.negations == 1 and _NOT_IF.match(assessment.core or statement) is not None


def _parity(assessment: Assessment, unit: Unit) -> int:
    """Negations of the statement, the unit's negations about it, and opposite words: odd
    means the statement says the opposite of the unit."""
    opposed = len(_opposed(assessment, unit))
    return unit_parity(assessment.negations, assessment.tokens, assessment.terms, unit, opposed)


def _opposed(assessment: Assessment, unit: Unit) -> list[Term]:
    """The statement's words that ``unit`` holds an opposite of."""
    best = assessment.best
    if best is not None and best.unit is unit:
        return list(best.opposed)
    return list(_match(unit, assessment.terms, assessment.weights, assessment.elsewhere).opposed)


def _amount_words(value: Value, lex: Lexicon) -> str:
    """The words of ``value`` that say its amount: for a count of things ("cinq comprimés")
    the number only, since what is counted is the frame both sides must share."""
    surface = value.surface.lower()
    if not value.nouns:
        return surface
    words = surface.split()
    amount = [w for w in words if w[:1].isdigit() or lex.number_value(w) is not None]
    return " ".join(amount) or surface


def _given_periods(
    statement: str, unit_text: str, found: Sequence[Value]
) -> tuple[list[Value], list[Value]]:
    """The statement's rate periods ("par jour") that the unit gives as a length of time
    ("par 24 heures", "en 24 horas") or as a period of its own, and the unit's periods that
    give them: the same fact said another way, not frame words the unit lacks."""
    theirs = rate_periods(unit_text)
    given = [
        p for p in rate_periods(statement) if any(anchors.gives(f, p) for f in [*found, *theirs])
    ]
    return given, [t for t in theirs if any(anchors.gives(t, p) for p in given)]


def _denying_nothing(assessment: Assessment, unit: Unit, value: Value, lex: Lexicon) -> int:
    """The statement's negations and opposite words that deny nothing of ``value``, each
    counted once so that it drops out of the parity:

    - a "without" ("senza problemi", "ohne Fieber") denies its own noun only — unless the
      unit answers it with a negation of the same words ("unless a doctor advises" for
      "without a doctor's advice"), or holds its opposite ("uncomplicated");
    - a negation a clause break (",", ";", ":") keeps from the value ("Those who do *not*
      arrive by plane, register in Budel") denies its own clause — unless the unit denies
      the same words;
    - an opposite word that is a bound word ("au *moins* 3 000 euros" / "10 000 euros ou
      *plus*"): the values' bounds already hold it.
    """
    opposed = _opposed(assessment, unit)
    opposed_stems = {t.stem for t in opposed}
    count = sum(t.surface.lower() in lex.bound_words for t in opposed)
    tokens = assessment.tokens
    core = assessment.core
    at = core.find(value.surface) if core else -1
    for i, scope in zip(negation_positions(tokens, lex), negation_scopes(tokens, lex), strict=True):
        if any(scope & s for s in unit.scopes):
            continue  # the unit denies the same words: the two negations pair
        if tokens[i].lower in lex.without_words:
            count += not scope & opposed_stems
        elif at >= 0:
            lo, hi = sorted((tokens[i].end, at))
            count += any(t.text in _CLAUSE_BREAKS and lo <= t.start < hi for t in tokens)
    return count


#: Signs that end a clause within a sentence.
_CLAUSE_BREAKS = frozenset({",", ";", ":"})


def _same_slot(statement: str, value: Value, unit_text: str, rival: Value) -> bool:
    """The two names take one place: aligned word by word, the statement's name sits in a
    stretch the unit fills with the rival name."""
    a = _words(statement)
    b = _words(unit_text)
    a_span = _word_span(statement, value)
    b_span = _word_span(unit_text, rival)
    for frame in _FRAMES:  # "It is true that X ..." aligns as "X ..."
        if a[: len(frame)] == frame and a_span[0] >= len(frame):
            a = a[len(frame) :]
            a_span = (a_span[0] - len(frame), a_span[1] - len(frame))
            break
    if a_span == (0, 1):
        # a capitalized first word ("Stir well ...", "Gender, with ...") is a name in another
        # one's place only when the sentence goes on alike ("Ibuprofen is" / "Paracetamol is")
        return len(a) > 1 and b_span[1] < len(b) and a[1] == b[b_span[1]]
    if a_span[0] > 0 and b_span[0] > 0:
        word = a[a_span[0] - 1]
        if word == b[b_span[0] - 1] and word not in _WEAK_BEFORE:
            return True  # after the same word: "born in Vienna" / "born in Warsaw"
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        # one name replaces the other, and little else ("by UNICEF" / "by the World Health
        # Organization"): a long rewritten stretch pairs names that need not share a role
        tight = (
            i2 - i1 <= a_span[1] - a_span[0] + _SLOT_SLACK
            and j2 - j1 <= b_span[1] - b_span[0] + _SLOT_SLACK
        )
        if tight and _overlaps(a_span, (i1, i2)) and _overlaps(b_span, (j1, j2)):
            return True
    return False


def _word_span(text: str, value: Value) -> tuple[int, int]:
    """The value's position in :func:`_words` of ``text``."""
    before = len(_words(text[: value.start]))
    return before, before + max(1, len(_words(value.surface)))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]
