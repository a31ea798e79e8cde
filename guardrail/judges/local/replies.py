"""The reply's own values in a statement read with its question.

When an answer leans on its question ("Who runs the clinic?" + "Dr Mensah."), the resolver
(:mod:`guardrail.scoring.resolve`) writes a self-contained statement ("Dr Mensah runs the
clinic.") and knows which of its words came from the reply: the *reply values* (a name, a
place, a date, a time, a number). The rest of the statement is the question's *frame*.

A lexical match credits a word wherever the passage uses it, so a value the passage gives for
another role ("Dr Mensah sees patients only after a referral.") would be judged supported
once the frame is. This module reads such a statement the way a reader would:

1. the *frame unit* is the passage sentence (or clause) that covers most of the frame's
   words the passage uses, weighted as the verifier weighs them; when the sentence lists
   one value of the reply's type per part ("the late shift from 2pm to 10pm and the night
   shift from 10pm to 6am"), the part that holds most of the frame;
2. the reply's first value group must be in a frame unit (content words by stem or synonym,
   clock times as times of day and dates as whole dates in any format, an identifier letter
   right after its word: "Car Park A"), or right after the statement's own word before it
   where the frame unit lacks that word ("arrive *at 7:30 am*"); a later group ("14 days,
   *or 28 if you acknowledge service*") must be somewhere in the passage;
3. when it is not, the frame unit holding another value of its type (a time, a date, a
   number, a name) contradicts the statement (``NO``); otherwise the statement is not
   supported (``NOT SURE``), as it is when no passage sentence holds the frame;
4. when it is, in a frame unit that negates none of the statement's words, and the passage
   uses every frame word, the statement is supported (a count is left to the verifier: the
   same number often stands for something else in the same sentence).

Only a statement the resolver registered (:func:`remember`) is read this way, and only when
it is affirmative: a denial of a value ("You cannot pay at a branch.") says nothing about
which value holds. A variant of the statement (a synonym or an antonym made from it) gets the
statement's finding, reversed when it carries one more negation. Where no rule above
decides, the verifier decides as it does for any statement.

:func:`remember` holds the turn's statements in a context variable (the resolver sets it
for every answer it reads, so one turn's marks never reach another's); the verifier looks a
statement up by the factoid it was made from.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar

from guardrail.judges.local import anchors, verify, weekdays
from guardrail.judges.local.bindings import cut
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.times import (
    ORDINAL_DAYS,
    Date,
    calendar_dates,
    clock_minutes,
    hour_readings,
    hour_value,
    same_date,
)
from guardrail.judges.local.values import DIMENSIONS, Value, bound_words, extract, tables
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Unit,
    _match,
)
from guardrail.lang.context import current_language
from guardrail.text.stemming import stem
from guardrail.text.tokens import tokenize

__all__ = ["is_resolved", "remember", "reply_values", "reply_verdict"]

#: The reply values of the statements of the turn being scored (see :func:`remember`).
_TURN: ContextVar[dict[str, tuple[str, ...]] | None] = ContextVar("reply_values", default=None)
#: The statements of the turn whose question asks for a time of day (see :func:`remember`).
_CLOCK: ContextVar[frozenset[str]] = ContextVar("reply_clock", default=frozenset())
#: Every statement of the turn read with its question (see :func:`remember`).
_RESOLVED: ContextVar[frozenset[str]] = ContextVar("reply_resolved", default=frozenset())
#: The words of the turn's question around the sentence it asks (see :func:`remember`).
_PREMISE: ContextVar[str] = ContextVar("reply_premise", default="")
#: The turn's whole question (see :func:`remember`): the asker's age (:mod:`.ages`).
_QUESTION: ContextVar[str] = ContextVar("reply_question", default="")
_KEY = re.compile(r"[^\w%]+")
#: Longest reply value read this way (in words other than prepositions and articles): a
#: name, a place, a date, a time, a number.
MAX_VALUE_WORDS = 5
_LINKS = frozenset("a an the at in on by of for from to till until with near".split())
#: How much a word of the question's premise weighs against a word of the asked sentence
#: in choosing the passage sentence that answers it (a tie-breaker, not the question).
PREMISE_WEIGHT = 0.3
#: Share of the frame's weight a passage unit must cover to hold the question's frame.
MIN_FRAME = 0.34
_FRAMING = re.compile(
    r"^(?:it\s+is\s+(?:not\s+)?true\s+that|in\s+fact,?|indeed,?|actually,?)\s+", re.IGNORECASE
)


def _key(text: str) -> str:
    return _KEY.sub(" ", _FRAMING.sub("", text.strip()).lower()).strip()


def remember(
    values: Mapping[str, Sequence[str]],
    clock: Iterable[str] = (),
    resolved: Iterable[str] = (),
    premise: str = "",
    question: str = "",
) -> None:
    """Start a turn: ``values`` maps each resolved statement to the reply words that fill
    the question's gap in it (an empty mapping: nothing was resolved); ``clock`` names the
    statements whose question asks for a time of day ("What time…?", "When does it
    open?"), where a bare hour ("From 9.", "2 till 4.") is a clock time; ``resolved`` names
    every statement read with its question (:func:`is_resolved`); ``premise`` is what the
    question says around the sentence it asks ("we're in a self-catered flat"), which helps
    choose the passage sentence that answers it; ``question`` is the whole question (an
    age it gives rules out a value the passage gives another age group, see
    :func:`turn_question`). The marks belong to the current context (the task scoring the
    turn) and replace the previous turn's."""
    _TURN.set({_key(k): tuple(w for w in v if w.strip()) for k, v in values.items() if v})
    _CLOCK.set(frozenset(_key(k) for k in clock))
    _RESOLVED.set(frozenset(_key(k) for k in resolved))
    _PREMISE.set(premise)
    _QUESTION.set(question)


def turn_question() -> str:
    """The current turn's whole question ("" outside a turn read with its question)."""
    return _QUESTION.get()


def is_resolved(statement: str) -> bool:
    """Whether ``statement`` (or the statement it was cut from) was read with its question
    this turn: a short reply whose every word the verifier weighs."""
    return _marked(statement, _RESOLVED.get())


def _marked(statement: str, keys: frozenset[str]) -> bool:
    """Whether ``statement``, or the one statement among ``keys`` it was cut from, is marked."""
    key = _key(statement)
    return key in keys or _parent(key, keys) is not None


def _parent(key: str, table: Iterable[str]) -> str | None:
    """The one resolved statement (key) a factoid (``key``) was cut from: every word of the
    factoid is one of its words; None when there is none or more than one."""
    words = set(key.split())
    parents = [k for k in table if len(k) > len(key) and words <= set(k.split())]
    return parents[0] if len(parents) == 1 else None


def reply_values(statement: str) -> tuple[str, ...]:
    """The reply words recorded for ``statement`` in this turn (empty: not resolved). A
    factoid the decomposer cut from a resolved statement ("... only 2 to 4" of "... only 2
    to 4 and 6 to 8") has the statement's reply words it keeps."""
    table = _TURN.get()
    if not table:
        return ()
    key = _key(statement)
    found = table.get(key)
    if found is not None:
        return found
    parent = _parent(key, table)
    if parent is None:
        return ()
    values = table[parent]
    said = f" {key} "
    words = set(key.split())
    kept = tuple(w for w in values if _key(w) and set(_key(w).split()) <= words)
    if len(kept) > 1 and f" {_key(' '.join(kept))} " in said:
        return kept  # "on 4 October" cut from "on 4 and 18 October": the day and its month
    for size in range(len(values), 0, -1):  # the longest run of them the factoid says
        for start in range(len(values) - size + 1):
            run = values[start : start + size]
            if any(c.isalnum() for w in run for c in w) and f" {_key(' '.join(run))} " in said:
                return tuple(run)
    return ()


_FALSE_FRAMING = re.compile(r"^it\s+is\s+(?:false|untrue|incorrect|wrong)\s+that\b")


def _negations(text: str, lex: Lexicon) -> int:
    """Negations of ``text``, a framing "It is not true that" counted as one."""
    low = text.lower().replace("’", "'")
    framed = 1 if _FALSE_FRAMING.match(low) else 0
    return framed + sum(
        1
        for t in tokenize(low, "lexical")
        if t.lower in lex.negations or t.lower.endswith("n't") or t.lower == "cannot"
    )


def _holds(unit: Unit, term: Term) -> bool:
    if term.number is not None:
        return term.number in unit.numbers
    if term.stem in unit.stems or term.same & unit.same:
        return True
    if term.stem in _WEEK_PARTS:
        return _days_cover(unit.text, _WEEK_PARTS[term.stem])
    return f"re{term.stem}" in unit.stems  # "opens again" / "reopens"


#: The days (0 = Monday) "weekdays" and "weekends" name.
_WEEK_PARTS = {"weekday": (0, 1, 2, 3, 4), "weekend": (5, 6)}


@functools.lru_cache(maxsize=256)
def _days_cover(text: str, days: tuple[int, ...]) -> bool:
    """Whether ``text`` names every day of ``days`` ("Monday to Friday" for weekdays), or,
    for the weekend, one of its days ("on Saturdays")."""
    found = extract(text)
    spans = weekdays.ranges(found, text)
    named = {int(v.amount) for v in found if v.kind == "weekday" and v.amount is not None}
    held = [d in named or weekdays.covered(d, spans) for d in days]
    return any(held) if len(days) < 3 else all(held)


def _anywhere(term: Term, index: ContextIndex) -> bool:
    return any(_holds(u, term) for u in index.units)


def _frame_cover(
    unit: Unit, frame: Sequence[tuple[Term, float]], header: Unit | None = None
) -> float:
    """The share of the frame's weight ``unit`` holds, or the passage's ``header`` holds for
    it (a heading's words are said of every sentence under it)."""
    total = sum(w for _, w in frame) or 1.0
    return sum(w for t, w in frame if _holds(unit, t) or (header and _holds(header, t))) / total


def _weight(term: Term, index: ContextIndex) -> float:
    """The verifier's weight: words the passage uses rarely weigh most."""
    df = index.df.get(term.stem, 0)
    n = index.sentences
    return math.log((n + 1) / (df + 0.5)) + 1.0 if df else math.log(n + 1) + 1.0


def _identifiers(source: str, values: Iterable[str]) -> list[tuple[str, str]]:
    """(word, letter) pairs: a capital letter standing as an identifier after its word in
    the statement, when the letter is a reply value ("Car Park A", "Gate B")."""
    letters = {v for v in values if len(v) == 1 and v.isupper()}
    found = re.finditer(r"\b([A-Za-z][\w-]*)\s+([A-Z])\b", source)
    return [(m.group(1), m.group(2)) for m in found if m.group(2) in letters]


def _unit_holds_identifier(unit: Unit, word: str, letter: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\s+{letter}\b", unit.text, re.IGNORECASE) is not None


def _times(text: str) -> set[int]:
    return clock_minutes(text)


#: Where a passage sentence lists one value per part ("the late shift from 2pm to 10pm and
#: the night shift from 10pm to 6am").
_PARTS = re.compile(r",\s+|;\s+|\s+[-–—]\s+|\s+(?:and|or|whereas|while|but)\s+", re.IGNORECASE)


def _pieces(text: str) -> list[str]:
    """``text`` cut where a listing sentence moves to its next part; never inside a range or
    an alternative of values ("one or two days", "week 10 and week 14")."""
    return cut(text, _PARTS, clock_parts=True)


#: Words that open a part of its own: a piece starting otherwise continues the first
#: piece's clause ("... closes on 2 July *and reopens on 20 August*").
_OPENERS = frozenset(
    "the a an this that these those its their his her our your my he she it they we you i".split()
)


#: Words that give a clause its own finite verb ("routine bookings *can* be made").
_FINITE = frozenset(
    "is are was were can could may might must shall should will would does has have".split()
)


def _finite(piece: str) -> bool:
    """Whether ``piece`` has a finite verb of its own after its first word."""
    return any(w in _FINITE for w in piece.lower().split()[1:])


def _continues(piece: str) -> bool:
    """Whether ``piece`` goes on with the first part's clause ("and reopens on 20 August",
    "and at 10am on Sundays"), rather than opening one with a subject of its own ("the
    night shift from 10pm", "routine bookings can be made from 10am")."""
    words = piece.lower().split()
    if not words or not (piece[:1].islower() or piece[:1].isdigit()) or words[0] in _OPENERS:
        return False  # a clock time opens a part that goes on ("and 10:00 to 16:00 on ...")
    return not _finite(piece)


def _shared(
    first_piece: str,
    opener: str,
    frame: Sequence[tuple[Term, float]],
    lex: Lexicon,
    held: set[int],
) -> set[int]:
    """The frame words a part with no subject of its own shares with the first part: the
    words before the first part's parallel phrase ("The pharmacy opens | at 9am on
    Saturdays" for "at 10am on Sundays": not "Saturdays"), or all the first part holds when
    the part opens otherwise ("and reopens on 20 August")."""
    found = re.search(rf"\s{re.escape(opener)}\b", first_piece, re.IGNORECASE)
    if found is None and opener[:1].isdigit():
        # "... open 09:00 to 20:00 Monday to Friday | 10:00 to 16:00 on Saturdays": the
        # parallel phrase is the first part's own time and what follows it
        found = re.search(r"\s\d", first_piece)
    if found is None:
        return held
    units = verify.index_context(first_piece[: found.start()], lex).units[:1]
    if not units:
        return held
    return {id(t) for t, _ in frame if _holds(units[0], t)}


def _narrowed(
    unit: Unit,
    frame: Sequence[tuple[Term, float]],
    wanted: _Wanted,
    lex: Lexicon,
) -> tuple[list[Unit], bool]:
    """The part of ``unit`` that holds the frame, when the sentence lists values of the
    reply's type one per part and one such part holds more of the frame than every other;
    ``[unit]`` otherwise. The flag: two or more such parts hold the frame alike (the
    sentence gives several values and the question does not say which is asked for).

    A part shares what the sentence says once: a part with no subject of its own ("and
    reopens on 20 August", "and at 10am on Sundays") also holds the first part's frame words
    before its parallel phrase (:func:`_shared`), a part with its own subject and no verb
    ("the late bus at 11.40pm") the first part's words no other part repeats (its verb:
    "The first bus leaves at 6.15am"), and a part with a verb of its own ("routine bookings
    can be made from 10am") nothing."""
    pieces = _pieces(unit.text)
    if len(pieces) < 2:
        return [unit], False
    parts = [u for p in pieces for u in verify.index_context(p, lex).units[:1]]
    if len(parts) != len(pieces):
        return [unit], False
    held = [{id(t) for t, _ in frame if _holds(u, t)} for u in parts]
    once = held[0] - set().union(*held[1:])
    for i, piece in enumerate(pieces[1:], start=1):
        first = piece.split(maxsplit=1)[0]
        if _continues(piece):
            held[i] |= _shared(pieces[0], first, frame, lex, held[0])
        elif not _finite(piece):  # a part with a verb of its own shares nothing
            held[i] |= once
    total = sum(w for _, w in frame) or 1.0
    framed = {t.number for t, _ in frame if t.number is not None}
    valued = [i for i, u in enumerate(parts) if wanted.has_kind(u, framed)]
    if len(valued) < 2:
        return [unit], False
    covers = sorted(
        ((sum(w for t, w in frame if id(t) in held[i]) / total, i) for i in valued),
        reverse=True,
    )
    if covers[0][0] <= covers[1][0] + 1e-9:
        return [unit], True
    return [parts[covers[0][1]]], False


def reply_verdict(
    statement: str,
    source: str,
    assessment: Assessment,
    index: ContextIndex,
    lex: Lexicon,
) -> Finding | None:
    """The finding for (a variant of) a resolved statement whose reply values the passage
    does not give in the sentence holding the question's frame; ``None`` otherwise (the
    verifier then decides)."""
    origin = source if reply_values(source) else assessment.core or statement
    values = reply_values(origin)
    if not values or not index.units:
        return None
    if _negations(origin, lex):
        return None  # a denial of a value: nothing to place
    found = _source_finding(origin, values, index, lex)
    if found is None:
        return None
    flipped = (_negations(statement, lex) - _negations(origin, lex)) % 2 == 1
    if flipped and found.outcome is Support.CONTRADICTED:
        return Finding(
            Support.SUPPORTED, f"It denies a value the context gives otherwise. {found.reason}"
        )
    if flipped and found.outcome is Support.SUPPORTED:
        return Finding(Support.CONTRADICTED, f"It denies what the context gives. {found.reason}")
    return found


def _source_finding(
    source: str, values: Sequence[str], index: ContextIndex, lex: Lexicon
) -> Finding | None:
    terms = verify.assess(source, index, lex).terms
    groups = _groups(values)
    said = ", ".join(" ".join(g) for g in groups)
    clock = _marked(source, _CLOCK.get()) and any(_times(u.text) for u in index.units)
    wanted = [_wanted(source, group, terms, clock=clock) for group in groups]
    first, rest = wanted[0], wanted[1:]
    if not first.any() or first.length() > MAX_VALUE_WORDS:
        return None  # a clause of its own, not a value
    own = {id(t) for w in wanted for t in w.terms}
    frame = [(t, _weight(t, index) * (0.25 if t.light else 1.0)) for t in terms if id(t) not in own]
    full_frame = all(_anywhere(t, index) for t, _ in frame if not t.light)
    frame = [(t, w) for t, w in frame if _anywhere(t, index)]
    if frame:
        frame += _premise_frame(terms, index, lex)
    if not frame:
        return Finding(
            Support.UNKNOWN,
            f"The context does not mention the question's frame for the reply's value ({said}).",
        )
    covers = [(_frame_cover(u, frame, index.header), u) for u in index.units]
    best = max(c for c, _ in covers)
    if best < MIN_FRAME:
        return Finding(
            Support.UNKNOWN,
            f"No context sentence holds the question's frame for the reply's value ({said}).",
        )
    units = [u for c, u in covers if c >= best - 1e-9]
    ranged = _range_finding(source, first, units, values)
    if ranged is not None:
        return ranged
    whole = units
    tied = False
    if first.typed() or first.named():  # one value per part of a listing sentence
        narrowed = [_narrowed(u, frame, first, lex) for u in units]
        units = [n for found, _ in narrowed for n in found]
        tied = any(t for _, t in narrowed)
    placed = [u for u in units if first.placed(u)]
    # in a listing sentence's part, the verb the parts share is no place of the value's own
    if placed or (units == whole and _said_after(source, first, units, index, lex)):
        missing = [w for w in rest if not any(w.placed(u) for u in index.units)]
        if not missing:
            if tied or not placed:
                return None  # which of the sentence's values is asked for: the verifier
            only = full_frame or (
                not _frame_value_missing(source, values, index)
                and (
                    _only_time(wanted, placed, terms, index, lex)
                    or _clear_frame(first, placed, covers, terms)
                )
            )
            return _stated(placed, terms, wanted, only)
        return Finding(
            Support.UNKNOWN,
            f"The context does not give {' '.join(missing[0].words)} for this question.",
        )
    unit = units[0]
    rival = first.rival(unit, terms)
    if rival:
        return Finding(
            Support.CONTRADICTED,
            f"The context gives {rival}, not {' '.join(first.words)}, here: "
            f"{verify.quote(unit.text)}",
        )
    return Finding(
        Support.UNKNOWN,
        f"The sentence that answers the question does not give {' '.join(first.words)}: "
        f"{verify.quote(unit.text)}",
    )


def _premise_frame(
    terms: Sequence[Term], index: ContextIndex, lex: Lexicon
) -> list[tuple[Term, float]]:
    """The content words of the question's premise ("I ordered *express delivery*, when will
    it come?") the passage uses and the statement does not: they weigh in choosing the
    sentence that answers the question, as the asker's own qualifiers."""
    premise = _PREMISE.get()
    if not premise or _negations(premise, lex):
        return []  # "I'm not in detention": a denied premise names the sentence not asked about
    have = {t.stem for t in terms}
    extra = [
        t
        for t in verify.assess(premise, index, lex).terms
        if t.stem not in have and t.number is None and not t.light and _anywhere(t, index)
    ]
    return [(t, _weight(t, index) * PREMISE_WEIGHT) for t in {t.stem: t for t in extra}.values()]


def _said_after(
    source: str, wanted: _Wanted, framed: Sequence[Unit], index: ContextIndex, lex: Lexicon
) -> bool:
    """Whether a passage sentence gives the value right after the statement's content word
    before it ("arrive *at 7:30 am*" in "Please arrive at 7:30 am if you need to fast."),
    when the sentences holding most of the frame (``framed``) do not use that word: they
    say something else, and the word places the value. When they use it with another value
    ("Recycling is collected every Thursday"), the value is theirs to give."""
    tokens = tokenize(source, "lexical")
    reply = {t.lower for t in tokenize(" ".join(wanted.words), "lexical")}
    at = next((i for i, t in enumerate(tokens) if t.lower in reply), None)
    if not at:
        return False
    before = [
        i for i in range(at) if tokens[i].is_word and tokens[i].lower not in _OPENERS | _LINKS
    ]
    if not before:
        return False
    anchor = stem(tokens[before[-1]].lower)
    if any(anchor in u.stems for u in framed):
        return False
    reach = at - before[-1] + len(reply)
    for unit in index.units:
        found = tokenize(unit.text, "lexical")
        for i, tok in enumerate(found):
            if stem(tok.lower) != anchor:
                continue
            end = found[min(i + reach, len(found) - 1)].end
            window = verify.index_context(unit.text[tok.start : end], lex).units
            if window and wanted.placed(window[0]):
                return True
    return False


def _stated(
    placed: Sequence[Unit], terms: Sequence[Term], wanted: Sequence[_Wanted], full_frame: bool
) -> Finding | None:
    """Supported when a sentence holding the frame gives the reply's value, the passage uses
    every word of the frame, and that sentence negates none of the statement's words (the
    value said in another format — "half past three" for "3.30pm" — is matched here, where
    the word-level verifier would not); ``None`` otherwise (the verifier decides). A count
    ("twelve") is left to the verifier: the same number often stands for something else in
    the same sentence ("aged 12 to 15")."""
    if not full_frame or any(w.numbers and not (w.times or w.dates) for w in wanted):
        return None  # a count: the verifier weighs the words around it
    for unit in placed:
        if unit.negations_about(terms) == 0:
            said = ", ".join(" ".join(w.words) for w in wanted)
            return Finding(
                Support.SUPPORTED,
                f"The context gives {said} for this: {verify.quote(unit.text)}",
            )
    return None


def _clear_frame(
    first: _Wanted,
    placed: Sequence[Unit],
    covers: Sequence[tuple[float, Unit]],
    terms: Sequence[Term],
) -> bool:
    """Whether the question's frame points at the sentence giving the reply's value so
    clearly that the asker's own words the passage does not use ("my three hour delay")
    leave the answer standing: that sentence gives no other value of the reply's type and
    answers none of the frame's words with its opposite, and every other sentence that gives
    another value of the type holds none of the frame."""
    if first.times and _TIME_RANGE.search(" ".join(first.words)):
        return False  # a range: one of its times in the sentence does not place it
    if not placed or any(first.rival(u, terms) for u in placed):
        return False
    if any(_opposes(t, u) for t in terms for u in placed):
        return False
    return all(
        c <= 0 or not first.rival(u, terms) for c, u in covers if not any(u is p for p in placed)
    )


def _opposes(term: Term, unit: Unit) -> bool:
    """Whether ``unit`` uses the opposite of ``term`` and not ``term`` itself ("opens" for
    "closes"): a frame word the passage answers with its opposite is no aside."""
    if _holds(unit, term):
        return False
    return any(-sign in unit.polar.get(key, frozenset()) for key, sign in term.polar)


def _frame_value_missing(source: str, values: Sequence[str], index: ContextIndex) -> bool:
    """Whether a value of the statement outside the reply (a weekday, a date, an amount in
    its unit, a name) is not in the passage while the passage gives another of its kind:
    "on Sundays" where the passage gives Saturday's hours is no aside of the asker's. A name
    the passage does not give always counts."""
    reply = {w.lower() for w in values}
    given: list[Value] | None = None
    for value in extract(source):
        if reply & {w.lower() for w in value.surface.split()}:
            continue
        if given is None:  # the passage's values, read once and only when needed
            given = [v for u in index.units for v in extract(u.text)]
        same_kind = [g for g in given if g.kind == value.kind and g.key == value.key]
        if any(g.amount == value.amount and g.text == value.text for g in same_kind):
            continue
        if same_kind or value.kind == "name":
            return True
    return False


#: Words of a statement that ask for the end of a range of times ("When does it *close*?")
#: or for its start ("When does it *open*?").
_RANGE_END = frozenset("close closes closing closed shut shuts finish finishes end ends".split())
_RANGE_START = frozenset("open opens opening start starts begin begins".split())
_CLOCK_TOKEN = r"(?:\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midday|midnight)"
_TIME_RANGE = re.compile(
    rf"(?<![\w.:])(?P<a>{_CLOCK_TOKEN})\s*(?:to|until|till|-|–)\s*(?P<b>{_CLOCK_TOKEN})(?![\w:])",
    re.IGNORECASE,
)


def _readings(text: str) -> set[int]:
    """The clock readings of one end of a range: a time, or a bare hour (both readings)."""
    found = _times(text)
    if found:
        return found
    hour = hour_value(text.strip())
    return hour_readings(hour, 0, None) if hour is not None and 1 <= hour <= 12 else set()


def _range_finding(
    source: str, first: _Wanted, units: Sequence[Unit], values: Sequence[str]
) -> Finding | None:
    """A clock time answering when something opens or closes, against the range of times
    the sentence holding the frame gives ("runs 10:00 to 13:00"): the range's end for a
    closing time, its start for an opening time. The other end contradicts the statement;
    ``None`` when the question asks neither, or the sentence gives no one range."""
    if not first.times or len(units) != 1:
        return None
    reply = {w.lower().strip(".,") for w in values}
    asked = {w.lower() for w in re.findall(r"[\w-]+", source)} - reply
    end, start = bool(asked & _RANGE_END), bool(asked & _RANGE_START)
    if end == start or asked & {"hours", "times"} or _TIME_RANGE.search(" ".join(values)):
        return None  # "opening hours", "8am to 6pm": the whole range
    ranges = list(_TIME_RANGE.finditer(units[0].text))
    if len(ranges) != 1:
        return None
    low, high = _readings(ranges[0]["a"]), _readings(ranges[0]["b"])
    outside = _times(units[0].text[: ranges[0].start()] + " " + units[0].text[ranges[0].end() :])
    if outside - low - high:
        return None  # "open 08:00-17:00 ... and closes at 15:30 on Fridays": one time per part
    want, other = (high, low) if end else (low, high)
    said = " ".join(first.words)
    if first.times & want and not first.times & other:
        if units[0].scopes:
            return None  # "does not open until 10": the verifier reads the negation
        return Finding(
            Support.SUPPORTED,
            f"The context gives {said} as the {'end' if end else 'start'} of its hours: "
            f"{verify.quote(units[0].text)}",
        )
    if first.times & other and not first.times & want:
        return Finding(
            Support.CONTRADICTED,
            f"The context gives {said} as the {'start' if end else 'end'} of its hours, "
            f"not the {'end' if end else 'start'}: {verify.quote(units[0].text)}",
        )
    return None


def _only_time(
    wanted: Sequence[_Wanted],
    placed: Sequence[Unit],
    terms: Sequence[Term],
    index: ContextIndex,
    lex: Lexicon,
) -> bool:
    """Whether the reply is a clock time and the passage gives that time and no other, in a
    sentence that opposes none of the statement's words: then the time answers the question
    though the passage words only part of it ("What's the cut-off?" + "Half past three."
    against "Transfers made before 3.30pm are sent the same day.")."""
    if len(wanted) != 1 or not wanted[0].times or wanted[0].dates:
        return False
    given = set().union(*(_times(u.text) for u in index.units))
    if not given or not given <= wanted[0].times:
        return False  # several times in the passage: which one is asked for is not known
    weights = [1.0] * len(terms)
    elsewhere = [True] * len(terms)
    return all(not _match(u, list(terms), weights, elsewhere).opposed for u in placed)


def _groups(values: Sequence[str]) -> list[list[str]]:
    """The reply's value words in the groups the reply wrote apart ("14 days" / "28 if you
    acknowledge service"): :func:`remember` is given a "," between two groups."""
    out: list[list[str]] = [[]]
    for word in values:
        if word == ",":
            out.append([])
        else:
            out[-1].append(word)
    return [g for g in out if g] or [[]]


#: Words that only spell out a time or a date ("from ten till two", "the 3rd of May").
_CLOCK_WORDS = frozenset(
    "from till until to between and noon midday midnight half past quarter o'clock oclock "
    "am pm a.m p.m morning afternoon evening night the of st nd rd th end last day".split()
) | frozenset(w for o in ORDINAL_DAYS for w in o.replace("-", " ").split())
#: Weekday and month names: capitalized, but no names of people or places.
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays january february march april may june july august "
    "september october november december".split()
)


def _span(source: str, words: Sequence[str]) -> str:
    """The statement's own text from the first of ``words`` to the last, the words between
    included ("by seven in *the* morning"); the words joined when they are not found."""
    joined = " ".join(words)
    if not words:
        return joined
    first = re.search(rf"\b{re.escape(words[0])}\b", source, re.IGNORECASE)
    if first is None:
        return joined
    ends = [
        m.end() for m in re.finditer(rf"\b{re.escape(words[-1])}\b", source[first.start() :], re.I)
    ]
    return source[first.start() : first.start() + ends[-1]] if ends else joined


#: Words that hedge a value or stress its precision ("nine *sharp*", "*roughly* 12 weeks",
#: "by Friday *at the latest*"): not words of the value to find in the passage.
_HEDGES = frozenset(
    "sharp dot around about approximately approx roughly somewhere exactly precisely just "
    "only latest earliest ish".split()
)
_HOUR_LINKS = frozenset("at from till until til to and between - – or".split())


def _bare_hours(words: Sequence[str]) -> list[set[int]]:
    """The clock readings of each bare hour of a reply made only of hours and the words
    that join them ("From 9.", "2 till 4", "eight sharp"): both readings of an hour up to 12
    (2 is 2am or 2pm); empty when any other word is there."""
    hours: list[set[int]] = []
    for word in words:
        low = word.lower().strip(".,")
        if low in _HOUR_LINKS or low in _HEDGES or not low:
            continue
        hour = hour_value(low)
        if hour is None or not 1 <= hour <= 24:
            return []
        hours.append(hour_readings(hour, 0, None))
    return hours


#: Words before a duration that bound it: "after 12 months" is at least 12 months, "within
#: 14 days" at most 14 days.
_DURATION_BOUNDS = {"after": -1, "within": 1}


def _durations(measured: Sequence[Value], words: Sequence[str]) -> list[tuple[float, int]]:
    """(amount, bound) of each duration (of ``measured``) the reply opens with a bounding
    word ("after 12 months", "within 14 days")."""
    lows = [w.lower() for w in words]
    out: list[tuple[float, int]] = []
    for value in measured:
        first = value.surface.split()[0].lower()
        at = lows.index(first) if first in lows else -1
        if at > 0 and lows[at - 1] in _DURATION_BOUNDS and value.amount is not None:
            out.append((value.amount, _DURATION_BOUNDS[lows[at - 1]]))
    return out


def _wanted(
    source: str, words: Sequence[str], terms: Sequence[Term], *, clock: bool = False
) -> _Wanted:
    """The reply's value ``words`` as read in ``source``; ``clock``: the question asks for a
    time of day and the passage gives one, so a bare hour is a clock time."""
    said = " ".join(words)
    reply = {t.lower for t in tokenize(said, "lexical")}
    said_terms = [t for t in terms if t.surface.lower().replace("’", "'") in reply]
    # a hedge is no word to find, nor an ordinal's ending ("the 19th" is read "19", "th")
    own = [t for t in said_terms if t.surface.lower() not in _HEDGES | _ORDINAL_ENDINGS]
    whole = _span(source, words)  # "seven in the morning" is a time; "seven in morning" not
    times, dates = _times(whole), calendar_dates(whole)
    hours = _bare_hours(words) if clock and not (times or dates) else []
    if hours:
        times = set().union(*hours)
    if times or dates:
        own = [t for t in own if t.number is not None or t.surface.lower() not in _CLOCK_WORDS]
    if times:  # "one o'clock": the hour's word is in the time, not a word to find
        own = [t for t in own if hour_value(t.surface.lower()) is None]
    if dates:  # the month is in the date: "15th Jan 2027" is placed by "15/01/2027"
        months = tables(current_language()).months
        own = [t for t in own if t.number is not None or t.surface.lower() not in months]
    bounded = [v for v in extract(said) if v.bound and v.amount is not None]
    if bounded:  # "at most eight": the bound's words bound the number, they are not values
        skip = bound_words(current_language())
        own = [t for t in own if t.number is not None or t.surface.lower() not in skip]
    measured = _measures(said) if not (times or dates) else []
    spans = _durations(measured, words)
    if spans:  # "after 12 months": a waiting time, read as a bound on the duration
        own = [t for t in own if t.surface.lower() not in _DURATION_BOUNDS]
    wanted = _Wanted(words, said_terms, own, _identifiers(source, words), times, dates)
    wanted.hours = [] if len(hours) < 2 else hours
    wanted.bounds = [(v.amount, v.bound) for v in bounded if v.amount is not None] + spans
    said_words = {w.lower() for w in words}
    wanted.kinds = {
        v.kind
        for v in extract(source)
        if v.amount is not None and said_words & {w.lower() for w in v.surface.split()}
    }
    wanted.measure(measured)
    return wanted


#: English ordinal endings, which the tokenizer splits from their number ("19th").
_ORDINAL_ENDINGS = frozenset({"st", "nd", "rd", "th"})


#: The keys of quantities compared as amounts: lengths, weights, times and multiples ("twice
#: the rate" = "double the rate" = "2 times the rate").
_MEASURED = DIMENSIONS | {"time"}


def _measures(text: str) -> list[Value]:
    """The quantities ``text`` gives in a unit that converts (days, hours, metres, grams…),
    and its amounts of money ("Five hundred pounds" is "£500")."""
    return [
        v
        for v in extract(text)
        if (v.kind == "quantity" and v.key in _MEASURED) or (v.kind == "money" and v.amount)
    ]


class _Wanted:
    """The reply's values: its content words, identifier letters, clock times and dates."""

    def __init__(
        self,
        words: Sequence[str],
        said: Sequence[Term],
        own: Sequence[Term],
        letters: Sequence[tuple[str, str]],
        times: set[int],
        dates: set[Date],
    ) -> None:
        #: ``said``: every term of the reply (none of them is the question's frame); ``own``:
        #: those to find in the passage (no hedge, bound or clock word).
        self.words, self.terms = list(words), list(said)
        self.letters, self.times, self.dates = letters, times, dates
        self.own = [t for t in own if t.number is None] if times or dates else list(own)
        self.numbers = [t for t in own if t.number is not None]
        self.quantities: list[Value] = []
        #: The readings of each bare hour, when the reply gives more than one ("2 till 4"):
        #: each must be the passage's.
        self.hours: list[set[int]] = []
        #: (amount, +1 at most / -1 at least) of each bounded number of the reply.
        self.bounds: list[tuple[float, int]] = []
        #: The kinds of value the reply's numbers are in the statement (a quantity, money…).
        self.kinds: set[str] = set()

    def measure(self, quantities: Sequence[Value]) -> None:
        """Read the reply's numbers as measured quantities ("two weeks" = "14 days"): its
        numbers and unit words are then compared as quantities, not word for word."""
        if not quantities:
            return
        inside = {w.lower() for q in quantities for w in re.findall(r"[\w.]+", q.surface)}
        self.quantities = list(quantities)
        self.own = [t for t in self.own if t.surface.lower() not in inside]
        self.numbers = [t for t in self.numbers if t.surface.lower() not in inside]

    def _measured(self, unit: Unit) -> tuple[bool, bool]:
        """(every quantity of the reply is in ``unit``, ``unit`` gives another of its kind)."""
        there = _measures(unit.text)
        placed = all(any(anchors.gives(v, q) for v in there) for q in self.quantities)
        other = any(
            q.comparable(v) and not any(q.same(w) for w in there if q.comparable(w))
            for q in self.quantities
            for v in there
        )
        return placed, other

    def has_kind(self, unit: Unit, framed: set[float]) -> bool:
        """``unit`` gives a value of the reply's type that the question does not."""
        if self.times:
            return bool(_times(unit.text))
        if self.dates:
            return bool(calendar_dates(unit.text))
        if self.numbers:
            return bool(unit.numbers - framed)
        return self.named() and bool(unit.entities)

    def length(self) -> int:
        return sum(1 for w in self.words if w.lower() not in _LINKS)

    def typed(self) -> bool:
        return bool(self.numbers or self.quantities or self.times or self.dates)

    def named(self, capitalized: bool = False) -> bool:
        """The reply is a name ("Dr Lindqvist", "Gate B"); with ``capitalized``, any
        capitalized word of it counts as one (a weekday or a month never does)."""
        return bool(self.letters) or any(
            (t.entity or (t.surface[:1].isupper() if capitalized else t.namelike))
            and t.surface.lower() not in _CALENDAR
            for t in self.own
        )

    def any(self) -> bool:
        values = self.own or self.numbers or self.quantities
        return bool(values or self.letters or self.times or self.dates)

    def placed(self, unit: Unit) -> bool:
        """Every value is in ``unit``."""
        if self.times and not self.times & _times(unit.text):
            return False
        if self.hours and not all(h & _times(unit.text) for h in self.hours):
            return False
        if self.bounds and self._bound_against(unit):
            return False
        if self.dates:
            there = calendar_dates(unit.text)
            if not all(any(same_date(d, e) for e in there) for d in self.dates):
                return False
        elif not self.times and not all(_holds(unit, t) for t in self.numbers):
            return False
        if self.quantities and not self._measured(unit)[0]:
            return False
        if not all(_holds(unit, t) for t in self.own):
            return False
        return all(_unit_holds_identifier(unit, w, letter) for w, letter in self.letters)

    def _bound_against(self, unit: Unit) -> bool:
        """``unit`` bounds one of the reply's bounded amounts the other way ("at least 8"
        against "no more than 8")."""
        there = [v for v in extract(unit.text) if v.bound and v.amount is not None]
        return any(
            v.amount == amount and v.bound == -bound for amount, bound in self.bounds for v in there
        )

    def _other_kinds(self, unit: Unit) -> set[float]:
        """The numbers of ``unit`` that are values of another kind than the reply's ("€2"
        is no rival of a count of withdrawals, "3pm" none of a number of days)."""
        kinds = self.kinds
        if not kinds:
            return set()
        out: set[float] = set()
        for value in extract(unit.text):
            if value.kind not in kinds:
                out |= {float(n) for n in re.findall(r"\d+(?:\.\d+)?", value.surface)}
        return out

    def rival(self, unit: Unit, terms: Sequence[Term]) -> str:
        """Another value of the reply's type in ``unit``: a time, a date, a number, a name."""
        if self.times and _times(unit.text) - self.times:
            return "another time"
        if self.dates and calendar_dates(unit.text):
            return "another date"
        if self.quantities and self._measured(unit)[1]:
            return "another amount"
        stated = {t.number for t in terms if t.number is not None}
        others = unit.numbers - stated - self._other_kinds(unit)
        if self.numbers and others:
            return ", ".join(f"{n:g}" for n in sorted(others))
        extra = unit.entities - {t.stem for t in terms}
        if self.named(capitalized=True) and extra:
            shown = [t.text for t in tokenize(unit.text, "lexical") if stem(t.lower) in extra]
            return ", ".join(dict.fromkeys(shown)) or "another name"
        return ""
