"""English wh-questions: the reply's value fills the question's gap ("When can X apply?" +
"After six months." -> "X can apply after six months.")."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from guardrail.judges.local.values import bound_words, tables
from guardrail.scoring.resolve._en_grammar import (
    AUX,
    BE,
    LOWER_FIRST,
    MONTHS,
    NEGATED,
    PREDICATE_ADJECTIVES,
    PREPOSITIONS,
    WEEKDAYS,
    Made,
    addressed,
    clause,
    has_relative,
    is_finite,
    is_participle,
    is_verb,
    morphology,
    sentence,
    split_words,
    subject_end,
)

if TYPE_CHECKING:
    from guardrail.judges.local.morph import Morphology

_WH = frozenset({"who", "whom", "what", "which", "when", "where", "how", "whose"})
_HOW = frozenset({"many", "much", "often", "long", "far", "soon", "old"})
#: "How far" and "how old" ask for a measure placed like a duration's, without "for".
_MEASURES = frozenset({"how far", "how old"})
#: A wh-question's noun that asks for a time, placed as an adverbial ("What time do the bins
#: need to be out?" + "By seven." -> "The bins need to be out by seven.").
_TIME_NOUNS = frozenset("time day date month year week hour".split())
_CLOCK = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?$|^\d{1,2}:\d{2}$", re.I)
_CLOCK_WORD = re.compile(r"^(?:\d{1,2}(?::\d{2})?|noon|midnight)$", re.I)
#: Longest narrowing of "where" or "when" ("where *in the main building* do I ...?").
_MAX_NARROWING = 5
#: Longest bare value ("On the second floor of the main building") read as filling a
#: wh-question's gap.
MAX_VALUE_WORDS = 10
#: Hedges around a value that are not part of it ("Two, usually.").
HEDGES = frozenset("usually normally generally typically mostly roughly approximately".split())


@dataclass(frozen=True)
class WhQuestion:
    """A wh-question taken apart: its wh word, the noun it asks about, and what follows."""

    preposition: str | None
    wh: str
    noun: tuple[str, ...]
    rest: tuple[str, ...]


def wh_question(words: list[str]) -> WhQuestion | None:
    if not words:
        return None
    i = 0
    preposition = None
    if words[0].lower() in PREPOSITIONS and len(words) > 1 and words[1].lower() in _WH:
        preposition, i = words[0].lower(), 1
    wh = words[i].lower()
    if wh not in _WH:
        return None
    i += 1
    if wh == "how":
        if i >= len(words) or words[i].lower() not in _HOW:
            return None
        wh = f"how {words[i].lower()}"
        i += 1
        if wh == "how soon":
            wh = "when"  # "How soon can I apply?" + "After six months."
    if wh in ("where", "when") and i < len(words) and words[i].lower() in PREPOSITIONS:
        # "Where in the building do I ...?": the narrowing runs to the auxiliary
        aux = next((j for j in range(i + 1, len(words)) if words[j].lower() in AUX), None)
        if aux is not None and aux - i <= _MAX_NARROWING:
            i = aux
    noun: list[str] = []
    if wh in ("which", "what", "whose", "how many", "how much"):
        has_aux = any(w.lower() in AUX or w.lower() in NEGATED for w in words[i:])
        limit = 4 if has_aux else 1
        morph = morphology()
        while i < len(words) and len(noun) < limit:
            low = words[i].lower()
            if low in AUX or low in NEGATED or (noun and is_finite(words[i], morph)):
                break
            noun.append(words[i])
            i += 1
    return WhQuestion(preposition, wh, tuple(noun), tuple(words[i:]))


def _value(q: WhQuestion, reply: list[str]) -> tuple[str, ...]:
    """The reply as the phrase that fills the question's gap."""
    words = list(reply)
    if words and (words[0].lower() in LOWER_FIRST or words[0][:1].isdigit()):
        words[0] = words[0].lower()
    if _frequency(q):
        low = {w.lower() for w in words}
        if not low & {"times", "time", "once", "twice"}:
            words.append("times")  # "Three." to "How many times a week ...?"
        if not low & {"a", "an", "per", "every", "each"}:
            words += q.noun[1:]
        return tuple(words)
    if q.wh in ("how many", "how much") and q.noun:
        answered = {w.lower().rstrip("s") for w in words}
        for j, noun in enumerate(q.noun):
            if noun.lower().rstrip("s") in answered:
                return (*words, *q.noun[j + 1 :])
        return (*words, *q.noun) if not _has_unit(_unbounded(words)) else tuple(words)
    first = words[0].lower() if words else ""
    if first in PREPOSITIONS or first in ("every", "only", "once", "twice"):
        return tuple(words)
    if q.preposition:
        return (q.preposition, *words)
    if q.wh == "what" and q.noun and q.noun[0].lower() == "time":
        return ("at", *words)
    if q.wh in ("when", "where"):
        prep = _preposition_for(words, q.wh)
        return (prep, *words) if prep else tuple(words)
    return tuple(words)


#: A period a count is given for ("in a day", "per week", "every 24 hours", "a month").
_PERIOD = re.compile(
    r"\b(?:(?:in|per|a|an|each|every|within)\s+(?:(?:a|an|one|\d+)\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?|nights?|24)|daily|weekly|monthly|yearly)\b",
    re.IGNORECASE,
)


def _without_period(rest: list[str], value: tuple[str, ...]) -> list[str]:
    """The question's words without its own period when the reply gives one ("How many can
    I take in a day?" + "Eight in 24 hours." -> no "in a day" after the reply's)."""
    if _PERIOD.search(" ".join(value)) is None:
        return rest
    text = " ".join(rest)
    found = list(_PERIOD.finditer(text))
    if not found or found[-1].end() != len(text):
        return rest
    kept = split_words(text[: found[-1].start()])
    return kept if kept else rest


def _frequency(q: WhQuestion) -> bool:
    """ "How many times (a day) ...?": the reply is an adverb of frequency, not an object."""
    return q.wh == "how many" and bool(q.noun) and q.noun[0].lower() in ("times", "time")


#: Words that bound or hedge a count before its number ("up to ten", "no more than eight"):
#: the value reader's bound phrases, negations and hedges, and a few of a reply's own.
_COUNT_BOUNDS = bound_words("en") | tables("en").approximate | {"only", "exactly"}


def _unbounded(words: list[str]) -> list[str]:
    """``words`` without the bound before its number ("up to ten" -> "ten")."""
    low = [w.lower() for w in words]
    k = 1 if low[:1] == ["a"] and low[1:2] and low[1] in _COUNT_BOUNDS else 0  # "a maximum of"
    while k < len(words) - 1 and low[k] in _COUNT_BOUNDS:
        k += 1
    return words[k:]


def _has_unit(words: list[str]) -> bool:
    return len(words) > 1 and any(not w[:1].isdigit() for w in words[1:])


def _preposition_for(words: list[str], wh: str) -> str | None:
    text = " ".join(words)
    first = words[0].lower() if words else ""
    if wh == "where":
        return "in"
    if first in WEEKDAYS or any(w.lower() in MONTHS for w in words):
        return "on"
    if re.fullmatch(r"\d{4}", text):
        return "in"
    if _CLOCK.match(text) or (_CLOCK_WORD.match(first) and len(words) <= 2):
        return "at"
    return None


def resolve_wh(q: WhQuestion, reply: list[str]) -> list[Made]:
    """The statement a value reply makes for a wh-question, or [] when no rule places it."""
    morph = morphology()
    reply = [w for w in reply if w.lower() not in HEDGES] or reply
    reply = list(addressed(reply))  # "My passport." is the asker's: "your passport"
    if q.wh == "how long" or q.wh in _MEASURES:
        return _how_long(q, reply, morph)
    value = _value(q, reply)
    rest = _without_period(list(q.rest), value)
    if not rest:
        return []
    head = rest[0].lower()
    if head not in AUX and head not in NEGATED:
        if q.preposition or q.wh not in ("who", "what", "which", "whose", "how many", "how much"):
            return []
        return [(sentence([*value, *addressed(rest)]), "wh_subject")]
    after = rest[1:]
    if after and after[0].lower() == "there":
        return [(sentence(["There", head, *value, *addressed(after[1:])]), "wh_there")]
    starts_predicate = bool(after) and (
        (head in BE and _starts_be_predicate(after[0], morph))
        or (head not in BE and is_verb(after[0], morph))
    )
    # "... based on?"; in a relative clause the last word is its own ("checks the baby over")
    stranded_q = (
        bool(after) and after[-1].lower() in PREPOSITIONS and not has_relative(after, morph)
    )
    if q.wh in ("who", "what") and not q.noun and head in BE and not starts_predicate:
        named = [w.lower() for w in after].index("called") if "called" in after else -1
        if named > 0:  # "What's the form called (for X)?" -> "The form (for X) is called Y."
            subject = addressed([*after[:named], *after[named + 1 :]])
            return [(sentence([*subject, head, "called", *value]), "wh_identity")]
        if stranded_q and subject_end(head, after, morph, strict=True) is not None:
            found = clause(rest[0], after)  # "What is X based on?" -> "X is based on ..."
            if found is not None:
                return [(found[0].render(morph, "+", fill=value), "wh_value")]
        return [(sentence([*value, head, *addressed(after)]), "wh_identity")]
    if starts_predicate and not q.preposition and q.wh not in ("when", "where", "how often"):
        return [(sentence([*value, head, *addressed(after)]), "wh_subject")]
    if head in BE and subject_end(head, after, morph, strict=True) is None:
        # "When is the next payroll date?" — everything after "is" is the subject
        if stranded_q:  # "Which floor is the clinic on?" -> "The clinic is on ..."
            return [(sentence([*addressed(after[:-1]), head, after[-1], *value]), "wh_value")]
        return [(sentence([*addressed(after), head, *value]), "wh_value")]
    found = clause(rest[0], after)
    if found is None:
        return []
    made, _negated = found
    object_gap = (
        q.wh in ("how many", "how much", "what", "which", "whose", "who", "whom")
        and not q.preposition
        and not _frequency(q)
    )
    timed = bool(q.noun) and q.noun[0].lower() in _TIME_NOUNS  # "what time ...": adverbial
    stranded = bool(made.predicate) and made.predicate[-1].lower() in PREPOSITIONS
    at = _main_verb(made.predicate) if made.verb else 0
    if object_gap and not stranded and at and not timed:
        # "What do I need to bring?" + "Your passport." -> "You need to bring your passport."
        predicate = (*made.predicate[: at + 1], *value, *made.predicate[at + 1 :])
        return [(replace(made, predicate=predicate).render(morph, "+"), "wh_value")]
    pred = made.predicate
    if (
        object_gap
        and made.verb
        and len(pred) > 1
        and pred[1].lower() in PREPOSITIONS
        and (len(pred) == 2 or pred[2].lower() in PREPOSITIONS)
    ):  # "Who do I speak to about X?" -> "You speak to Mrs Patel about X."
        predicate = (pred[0], pred[1], *value, *pred[2:])
        return [(replace(made, predicate=predicate).render(morph, "+"), "wh_value")]
    if stranded and q.wh == "where" and made.predicate[-1].lower() in _PLACE_ENDS:
        # "Where does the bus leave from?" + "Stand 12." -> "The bus leaves from Stand 12."
        prep = made.predicate[-1].lower()
        made = replace(made, predicate=made.predicate[:-1])
        value = _value(replace(q, preposition=prep), reply)
    # "What time do the bins need to be out?" + "By seven.": the time goes last
    after_verb = object_gap and not stranded and not (timed and at)
    return [(made.render(morph, "+", fill=value, after_verb=after_verb), "wh_value")]


#: Prepositions a where-question leaves at its end for the place ("leave *from*", "go *to*"),
#: not particles of the verb ("hand it *in*").
_PLACE_ENDS = frozenset({"from", "to", "at", "into"})


def _starts_be_predicate(word: str, morph: Morphology) -> bool:
    low = word.lower()
    return (
        low in PREDICATE_ADJECTIVES
        or low in PREPOSITIONS
        or low == "not"
        or is_participle(word, morph)
    )


#: What a duration question's verb may be led by before the verb that takes the duration.
_SEMI_MODALS = (
    ("have", "to"),
    ("has", "to"),
    ("need", "to"),
    ("want", "to"),
    ("be", "able", "to"),
)
#: Words that open a duration which needs no "for" ("about a week", "up to two days").
_MEASURED = PREPOSITIONS | frozenset(
    "about around up nearly almost roughly approximately only at less more over under".split()
)
#: Prepositions that open a duration question's own time phrase ("How long *before* ...?").
_RELATIVE = frozenset({"before", "after"})


def _how_long(q: WhQuestion, reply: list[str], morph: Morphology) -> list[Made]:
    """ "How long should I rest?" + "Two days." -> "You should rest for two days."; with the
    question's own "before the flight", "three hours before the flight"."""
    rest = list(q.rest)
    lead = 0
    if rest and rest[0].lower() in _RELATIVE:
        while lead < len(rest) and rest[lead].lower() not in AUX | set(NEGATED):
            lead += 1
    relative, rest = tuple(rest[:lead]), rest[lead:]
    if not rest or rest[0].lower() not in AUX or not reply:
        return []
    words = list(reply)
    if words[0].lower() in LOWER_FIRST or words[0][:1].isdigit():
        words[0] = words[0].lower()
    head, after = rest[0].lower(), rest[1:]
    if head in BE and subject_end(head, after, morph, strict=True) is None:
        # "How long is the course?" -> "The course is two weeks."
        return [(sentence([*addressed(after), head, *words, *relative]), "wh_duration")]
    found = clause(rest[0], after)
    if found is None:
        return []
    made, _negated = found
    if relative:
        return [(made.render(morph, "+", fill=(*words, *relative)), "wh_duration")]
    bare = words[0].lower() in _MEASURED or q.wh in _MEASURES
    measured = tuple(words) if bare else ("for", *words)
    if not made.verb:
        return [(made.render(morph, "+", fill=measured), "wh_duration")]
    if len(made.predicate) > 1 and made.predicate[-1].lower() == "for":
        # "How long do I take Revonil for?" -> "You take Revonil for ten days."
        predicate = (*made.predicate[:-1], *measured)
        return [(replace(made, predicate=predicate).render(morph, "+"), "wh_duration")]
    at = _main_verb(made.predicate) + 1
    predicate = (*made.predicate[:at], *measured, *made.predicate[at:])
    return [(replace(made, predicate=predicate).render(morph, "+"), "wh_duration")]


def _main_verb(predicate: tuple[str, ...]) -> int:
    """The index of the verb that takes a duration ("have to *wait*": 2; "have to *be* 18
    to vote")."""
    low = tuple(w.lower() for w in predicate)
    for lead in _SEMI_MODALS:
        if low[: len(lead)] == lead and len(low) > len(lead):
            return len(lead)
    return 0
