"""Conflicts of kind rather than of value: "must pay" against "free", and "immediately" against
a waiting time.

The value check (:mod:`~guardrail.judges.local.conflict`) compares two values of one kind; a
price against "free" has a value on one side only when "free" is not read as a price of zero
("women must pay for prescriptions" / "prescriptions are free"), and "immediately" against
"only after a two-week wait" has no value of one kind on both sides. Here each side is read for
*cues* — words that put it on one side of a pair of incompatible claims — in the language being
read (:func:`~guardrail.lang.context.current_language`): English's cues, plus the language
module's (:attr:`~guardrail.lang.base.Language.pay`, ``immediate``, ``wait``, ``free``).

A statement is contradicted when its best context unit covers half or more of its other words
(:data:`FRAME_COVERAGE`), the statement holds a cue of one side, the unit a cue of the other
and neither of the two is negated ("no fee" is free). Anything else is left to the other checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from guardrail.judges.local.lexicon import EN_FREE_PHRASES
from guardrail.judges.local.values import DURATION_DIMS, Value, tables
from guardrail.judges.local.verify import Assessment, Finding, Support, Unit, quote
from guardrail.lang.context import current_language
from guardrail.lang.registry import language

#: Share of the statement's weight, cue words left out, that its best unit must cover.
FRAME_COVERAGE = 0.5

_EN_PAY = frozenset(
    {"must pay", "have to pay", "has to pay", "need to pay", "needs to pay", "pay for", "charged",
     "a fee", "fee of", "is charged", "are charged", "costs", "paid for by the patient"}
)  # fmt: skip
#: "free" and its phrases (the phrases of several words are the verifier's:
#: :data:`~guardrail.judges.local.lexicon.EN_FREE_PHRASES`).
_EN_FREE = frozenset({"free", "for free", "free to"}) | EN_FREE_PHRASES
_EN_IMMEDIATE = frozenset(
    {"immediately", "at once", "straight away", "right away", "without delay", "instantly",
     "without waiting", "the same day", "straightaway"}
)  # fmt: skip
_EN_WAIT = frozenset(
    {"wait", "waits", "waiting", "waiting period", "waiting time", "only after", "not until",
     "delay of"}
)  # fmt: skip
#: Words before a free cue that make it something else than a price ("sugar free", "feel free").
_NOT_A_PRICE = frozenset({"feel", "sugar", "gluten", "fat", "tax", "duty", "smoke", "hands", "set"})


_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def _words(text: str) -> list[str]:
    """Lower-cased words ("two-week" is one)."""
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class Cues:
    """The cue phrases of one language (lower case, words separated by one space)."""

    pay: frozenset[str]
    free: frozenset[str]
    immediate: frozenset[str]
    wait: frozenset[str]

    @property
    def keys(self) -> frozenset[str]:
        """The longest word of every cue phrase: a text holds a cue only if it holds one."""
        return _key_words(self)


@cache
def cues(code: str) -> Cues:
    """English's cues plus those of ``code``'s language module."""
    lang = language(code)
    if lang is None:
        return Cues(_EN_PAY, _EN_FREE, _EN_IMMEDIATE, _EN_WAIT)
    return Cues(
        _EN_PAY | lang.pay,
        _EN_FREE | lang.free,
        _EN_IMMEDIATE | lang.immediate,
        _EN_WAIT | lang.wait,
    )


@cache
def _key_words(table: Cues) -> frozenset[str]:
    phrases = table.pay | table.free | table.immediate | table.wait
    return frozenset(max(p.split(), key=len) for p in phrases)


@cache
def _firsts(phrases: frozenset[str]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The phrases by their first word."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        parts = tuple(phrase.split())
        out.setdefault(parts[0], []).append(parts)
    return {k: tuple(v) for k, v in out.items()}


def _found(words: list[str], phrases: frozenset[str]) -> set[str]:
    """The phrases of ``phrases`` in ``words`` (a phrase after a negation or, for "free", after
    a word that makes it no price, is left out)."""
    out: set[str] = set()
    firsts = _firsts(phrases)
    negators = _negators(current_language())
    for i, word in enumerate(words):
        for parts in firsts.get(word, ()):
            n = len(parts)
            if words[i : i + n] != list(parts):
                continue
            phrase = " ".join(parts)
            before = words[max(0, i - 2) : i]
            if any(w in negators for w in before):
                continue
            if words[i + n : i + n + 1] == ["nothing"]:
                continue  # "costs nothing", "pay nothing": free
            if parts[0] == "free" and (before[-1:] and before[-1] in _NOT_A_PRICE):
                continue
            if parts == ("free",) and i + n < len(words) and words[i + n] in {"from", "of"}:
                continue  # "free from pain", "free of side effects" ("free of charge" is its own)
            out.add(phrase)
    return out


@cache
def _negators(code: str) -> frozenset[str]:
    """The words that deny a cue after them in language ``code``: its own negations and
    "without" words ("no" denies in Spanish, but is "in the" in Portuguese)."""
    lang = language(code)
    if lang is None:
        return _EN_NEGATORS
    return frozenset(lang.negations | lang.without) | (_NEGATORS - _EN_NEGATORS)


_EN_NEGATORS = frozenset({"not", "no", "never", "without"})
#: Negations of every language a cue may follow (a language module adds its own).
_NEGATORS = frozenset(
    {"not", "no", "never", "without", "nicht", "kein", "keine", "ne", "pas", "sans", "sin",
     "non", "senza", "não", "sem", "niet", "geen", "zonder"}
)  # fmt: skip


def _frame(assessment: Assessment, cue_words: set[str]) -> bool:
    """The best unit covers most of the statement's words that are not cue words."""
    best = assessment.best
    if best is None:
        return False
    missing = {id(t) for t in best.missing}
    total = got = 0.0
    for term, weight in zip(assessment.terms, assessment.weights, strict=True):
        if term.surface.lower() in cue_words:
            continue
        total += weight
        if id(term) not in missing:
            got += weight
    return total > 0 and got / total >= FRAME_COVERAGE


#: Words before a length of time that make it a wait to sit out ("*after* 12 months"); a
#: language's lower bounds ("more than", "mindestens") count too.
_AFTER = ("after",)


#: A digit or a currency sign: a text that may give an amount of money.
_MONEY = re.compile(r"[\d$€£¥]")


def _prices(values: list[Value]) -> set[str]:
    """The words of the amounts of money among ``values`` ("8", "euros" of "costs 8 euros";
    "£3" as written and as "3")."""
    out: set[str] = set()
    for value in values:
        if value.kind == "money":
            out.update(_words(value.surface))
            out.update(w.strip(".,") for w in value.surface.lower().split())
    return out


def _bounded_waits(words: list[str]) -> set[str]:
    """The waits ``words`` give as a length of time after "after" or a lower bound ("after
    12 months", "more than six months", "at least 14 days"): a wait as much as "wait" is.
    An upper bound ("within 14 days") is a deadline, not a wait."""
    t = tables(current_language())
    lower = [p.split() for p, sign in t.bounds_before.items() if sign < 0] + [list(_AFTER)]
    out: set[str] = set()
    for i in range(2, len(words)):
        if t.units.get(words[i], ("", 0.0))[0] not in DURATION_DIMS:
            continue
        number = words[i - 1]
        if not (number.isdigit() or number in t.small):
            continue
        for parts in lower:
            start = i - 1 - len(parts)
            if start >= 0 and words[start : i - 1] == parts:
                out.add(" ".join(words[start : i + 1]))
    return out


#: Words a denied wait may hold between its negation and the wait ("no *need to* wait", "sin
#: *tener que* esperar", "ohne *lange* zu warten").
_DENIED_WAIT_REACH = 4
#: Signs that end the clause a negation denies.
_CLAUSE_END = re.compile(r"[,;:.!?()]")


def _denied_waits(text: str, waits: frozenset[str]) -> set[str]:
    """The waits ``text`` denies within one clause ("without waiting", "no need to wait",
    "sin tener que esperar", "zonder te wachten"): each says "immediately" as much as an
    immediate cue does, and its negation denies the wait, not the statement."""
    negators = _negators(current_language())
    units = tables(current_language()).units
    firsts = _firsts(waits)
    out: set[str] = set()
    for clause in _CLAUSE_END.split(text):
        words = _words(clause)
        for i, word in enumerate(words):
            if word not in negators:
                continue
            for j in range(i + 1, min(len(words), i + 2 + _DENIED_WAIT_REACH)):
                if not any(words[j : j + len(p)] == list(p) for p in firsts.get(words[j], ())):
                    continue
                after = words[j + 1 : j + 2 + _DENIED_WAIT_REACH]
                if not any(units.get(w, ("", 0.0))[0] in DURATION_DIMS for w in after):
                    out.add(" ".join(words[i : j + 1]))  # "do not wait *3 days*": a deadline
                break
    return out


def _without_phrases(words: list[str], phrases: set[str]) -> list[str]:
    """``words`` with every run of words that spells one of ``phrases`` left out."""
    runs = [p.split() for p in phrases]
    out: list[str] = []
    i = 0
    while i < len(words):
        run = next((r for r in runs if words[i : i + len(r)] == r), None)
        if run is None:
            out.append(words[i])
            i += 1
        else:
            i += len(run)
    return out


#: Words that put the action after the wait ("wait an hour *then* call"), per language.
_THEN = frozenset(
    "then after afterwards dann danach puis ensuite luego después depois poi dopo dan "
    "daarna".split()
)


def _waited(statement: str) -> set[str]:
    """The words of the lengths of time ``statement`` gives ("an hour", "meia hora"): a unit
    of time and the word before it. How long the wait lasts is part of the wait, not of the
    frame."""
    units = tables(current_language()).units
    words = _words(statement)
    out: set[str] = set()
    for i, word in enumerate(words):
        if units.get(word, ("", 0.0))[0] in DURATION_DIMS:
            out.update(words[max(0, i - 1) : i + 1])
    return out


def finding(
    statement: str,
    assessment: Assessment,
    stated: Callable[[str], list[Value]],
    values_of: Callable[[Unit], list[Value]],
) -> Finding | None:
    """Contradicted when the statement and its best unit take the two sides of "pay" / "free"
    or "immediately" / "wait"; ``None`` otherwise. ``stated`` and ``values_of`` give the
    values of a statement and of a unit (remembered by the caller)."""
    best = assessment.best
    if best is None or not assessment.terms:
        return None
    table = cues(current_language())
    said = _words(assessment.core or statement)
    if table.keys.isdisjoint(said) and not _MONEY.search(statement):
        return None  # no cue at all: the common case, decided at once
    denied_waits = _denied_waits(assessment.core or statement, table.wait)
    if assessment.negations > len(denied_waits):
        return None
    said = _without_phrases(said, denied_waits)  # a denied wait is no wait of the statement's
    unit_denied = _denied_waits(best.unit.text, table.wait)
    unit = _without_phrases(_words(best.unit.text), unit_denied)
    price: set[str] = set()
    for one, other in (
        (table.pay, table.free),
        (table.free, table.pay),
        (table.immediate, table.wait),
        (table.wait, table.immediate),
    ):
        theirs = _found(unit, other) | (_bounded_waits(unit) if other is table.wait else set())
        if other is table.immediate:
            theirs |= unit_denied
        if not theirs or _found(unit, one) or (one is table.immediate and unit_denied):
            continue
        mine = _found(said, one) | (_bounded_waits(said) if one is table.wait else set())
        if one is table.immediate:
            mine |= denied_waits  # "without waiting", "sin tener que esperar"
        if one is table.pay and not _found(said, table.free):
            price = _prices(stated(statement))  # "costs 8 euros": the amount is the price
            mine |= price  # "Blue badge holders pay £3": a price is a cue of paying
        if not mine or _found(said, other):
            continue
        if one is table.pay and _prices(values_of(best.unit)):
            continue  # the unit gives a price itself: its "free" is of something else
        cue_words = {w for p in mine | theirs for w in p.split()}
        if one is table.pay:
            cue_words |= price
        if one is table.wait:  # "wait *an hour and then* call": the wait's length and its "then"
            cue_words |= _waited(statement) | _THEN
        if _frame(assessment, cue_words):
            says = " / ".join(sorted(theirs))
            return Finding(
                Support.CONTRADICTED,
                f"The context says {says!r}, not {' / '.join(sorted(mine))!r}: "
                f"{quote(best.unit.text)}",
            )
    return None
