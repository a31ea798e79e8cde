"""English yes/no questions: a reply's yes or no, its echo ("they can", "the employee
must") and qualifier, and the statements they make with the question's clause."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from guardrail.scoring.resolve._en_grammar import (
    AUX,
    DETERMINERS,
    DO,
    LOWER_FIRST,
    MODALS,
    MONTHS,
    NEGATED,
    PREPOSITIONS,
    PRONOUNS,
    WEEKDAYS,
    Clause,
    Made,
    Sign,
    addressed,
    has_finite,
    is_finite,
    is_verb,
    morphology,
    sentence,
    split_words,
)

POSITIVE = (
    "yes",
    "yeah",
    "yep",
    "yup",
    "sure",
    "certainly",
    "of course",
    "correct",
    "right",
    "absolutely",
    "indeed",
    "definitely",
    "that's right",
    "that is right",
    "that's correct",
    "that is correct",
)
NEGATIVE = (
    "no",
    "nope",
    "not really",
    "not at all",
    "absolutely not",
    "certainly not",
    "definitely not",
    "of course not",
    "never",
    # hedged: "Usually not, unless ..." answers no for the usual case
    "usually not",
    "not usually",
    "normally not",
    "not normally",
    "generally not",
    "not generally",
    "mostly not",
    "probably not",
)
LEAD = re.compile(
    r"^\s*(?P<word>"
    + "|".join(re.escape(w) for w in sorted((*POSITIVE, *NEGATIVE), key=len, reverse=True))
    + r")\b\s*(?P<sep>[,.;:!—–-]+)?\s*",
    re.IGNORECASE,
)
#: Words after a yes or no that only stress it ("No, never.").
_EMPHASIS = frozenset(
    "never ever always not at all really absolutely definitely certainly of course indeed".split()
)
#: Adverbs a qualifier may add to words of the question without saying anything new
#: ("Yes, *always* with food.", "Yes, *just* your passport.").
_FOCUS = frozenset("always just only usually normally generally definitely certainly also".split())
#: Subject pronouns: after a yes or no they open a clause of their own ("No, it kicks in on
#: day four."), even when the verb after them is not one the lexicon knows.
_SUBJECTS = frozenset("i you he she it we they".split())
#: Words that open a condition standing for a qualified yes ("Only after three months.").
_CONDITIONS = frozenset("only after until from before within during between with".split())
# -- replies --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A short reply taken apart: its yes or no (``lead``), an echo ("they can", "the
    employee must", "it is closed") and a qualifier ("after three months")."""

    lead: Sign | None
    echo_sign: Sign | None = None
    echo_aux: str | None = None
    echo_subject: tuple[str, ...] = ()
    echo_predicate: tuple[str, ...] = ()
    qualifier: tuple[str, ...] = ()
    #: The words after the yes or no, when no rule places them ("with milk is fine").
    unplaced: tuple[str, ...] = ()
    #: The qualifier came after a "not" ("No, not after 32 weeks."): it is denied too.
    qualifier_denied: bool = False

    @property
    def sign(self) -> Sign:
        """The answer to the question asked: a bare echo ("they can't") is the more explicit,
        an echo with its own predicate ("No, it is closed.") leaves the yes/no to the lead."""
        if self.echo_sign is not None and (not self.echo_predicate or self.lead is None):
            return self.echo_sign
        return self.lead or "+"


def read_reply(text: str) -> Reply | None:
    """The yes/no, echo and qualifier of a reply sentence; None when it is not that kind."""
    lead: Sign | None = None
    rest = text.strip()
    found = LEAD.match(rest)
    if found is not None:
        word = found["word"].lower()
        if word in POSITIVE and not found["sep"] and rest[found.end() :].strip():
            return None  # "Right after the scan ..." is no yes
        lead = "+" if word in POSITIVE else "-"
        rest = rest[found.end() :]
    words = split_words(rest)
    if not words:
        return Reply(lead) if lead else None
    conditioned = _condition(lead, words)
    if conditioned is not None:
        return conditioned
    echo = _echo(words)
    if echo is not None:
        return replace(echo, lead=lead, unplaced=tuple(words))
    if lead != "+" and len(words) > 2 and words[0].lower() == "not" and words[1] in PREPOSITIONS:
        # "No, not after 32 weeks.", "No, not without a court order.": a denied condition
        return Reply("-", qualifier=tuple(words[1:]), qualifier_denied=True)
    if has_finite(words) or (len(words) > 1 and words[0].lower() in _SUBJECTS):
        # "Yes, with milk is fine.", "No, it kicks in on day four.": the yes is read, the
        # rest is checked as written (a subject pronoun opens a clause whatever verb follows)
        return None if lead is None else Reply(lead, unplaced=tuple(words))
    if lead is not None and all(w.lower() in _EMPHASIS for w in words):
        return Reply(lead)  # "No, never.", "Yes, absolutely."
    if words[0].lower() == "not":
        return None if lead == "+" else Reply("-", qualifier=tuple(words[1:]))
    if lead is None and words[0].lower() in _CONDITIONS:
        # "Only after three months.": a yes, on a condition
        kept = words[1:] if words[0].lower() == "only" and len(words) > 1 else words
        return Reply("+", qualifier=(kept[0].lower(), *kept[1:]))
    if lead is not None and len(words) > 1 and imperative(words[0], words[1]):
        return Reply(lead, unplaced=tuple(words))  # "No, take it with food."
    return None if lead is None else Reply(lead, qualifier=tuple(words))


#: Words that open a condition clause after "only" or "not" ("only if it is cooked").
_IF = frozenset("if when once unless".split())


def _condition(lead: Sign | None, words: list[str]) -> Reply | None:
    """A reply that is a condition clause ("Only if it's cooked through.", "Yes, but only
    when you have a GP letter.", "Not unless a doctor agrees."): the question's statement
    affirmed on that condition; None for any other reply."""
    rest = words[1:] if words and words[0].lower() == "but" else words
    if len(rest) < 3:
        return None
    first, second = rest[0].lower(), rest[1].lower()
    if first == "only" and second in _IF - {"unless"} and lead != "-":
        return Reply("+", qualifier=("only", *rest[1:]))
    if first == "not" and second == "unless" and lead != "+":
        return Reply("+", qualifier=("only", "if", *rest[2:]))
    return None  # "Not if you opt out.": what holds then is not said


#: Words after a verb that make it an instruction with an object ("take *it*", "ask *a*
#: doctor", "wait *48* hours"), not an adjective or a noun ("free of charge").
_OBJECT_STARTS = DETERMINERS | {"it", "them", "him", "her", "me", "us", "one"}


def imperative(word: str, following: str) -> bool:
    """A verb's bare form opening an instruction ("take it", "wait 48 hours")."""
    low = word.lower()
    if following.lower() not in _OBJECT_STARTS and not following[:1].isdigit():
        return False
    return (
        low not in LOWER_FIRST
        and low not in PRONOUNS
        and word[:1].isalpha()
        and is_verb(word, morphology())
        and not is_finite(word, morphology())
    )


def _echo(words: list[str]) -> Reply | None:
    """ "they can", "it does not", "the employee must", "it is closed, after ..."."""
    for i in range(min(len(words), 5)):
        low = words[i].lower()
        if low in AUX or low in NEGATED or low == "never":
            if i == 0:
                return None
            sign: Sign = "-" if low in NEGATED or low == "never" else "+"
            aux = NEGATED.get(low, low)
            after = words[i + 1 :]
            if after and after[0].lower() in ("not", "never"):
                sign, after = "-", after[1:]
            if low == "never" and after and after[0].lower() in AUX:
                aux, after = after[0].lower(), after[1:]  # "it never does"
            predicate, qualifier = _split_qualifier(after)
            return Reply(
                None,
                echo_sign=sign,
                echo_aux=None if aux == "never" else aux,
                echo_subject=tuple(words[:i]),
                echo_predicate=predicate,
                qualifier=qualifier,
            )
        if low in PREPOSITIONS or not words[i][:1].isalpha():
            return None
    return None


def _split_qualifier(words: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if len(words) > 1 and words[0].lower() == "to" and is_verb(words[1], morphology()):
        return tuple(words), ()  # "you have *to apply first*": a predicate of its own
    if words and (
        words[0].lower() in PREPOSITIONS | {"every", "only", "right", "up", "but"}
        or words[0][:1].isdigit()
        or words[0][:1] in "£€$"
    ):  # "it is, 20 euros", "they do, but a cheaper one"
        return (), tuple(words)
    return tuple(words), ()


# -- statements -----------------------------------------------------------------------------


def resolve_polar(clause_: Clause, negated: bool, reply: Reply) -> list[Made]:
    """Statements for a yes/no question's reply: the question's statement affirmed or
    denied; plus the echo's own predicate ("No, it is closed."), or the other subject's
    statement ("No, the employee must."), or the words no rule places, as written. A full
    sentence after the yes or no stands on its own: nothing is made."""
    morph = morphology()
    subject = addressed(reply.echo_subject)
    same = (
        not subject
        or subject[0].lower() in PRONOUNS
        or subject[0].lower() == "you"
        or _alike(subject, clause_.subject)
    )
    asked = clause_
    bare_echo = not reply.echo_predicate
    if bare_echo and reply.echo_aux in MODALS and (clause_.aux in MODALS or clause_.aux in DO):
        # "Does it cause fever?" "It can."; "Do I have to pay?" "You must." (no "must have to")
        predicate = clause_.predicate
        if [w.lower() for w in predicate[:2]] in (["have", "to"], ["need", "to"]):
            predicate = predicate[2:]
        asked = replace(clause_, aux=reply.echo_aux, predicate=predicate)
    own = {w.lower() for w in (*clause_.predicate, *clause_.subject)}
    plain = {w.lower() for w in reply.qualifier} - _FOCUS
    qualifier = reply.qualifier if not plain <= own else ()  # "Yes, always with food." repeats
    while len(qualifier) > 1 and qualifier[0].lower() in own - PREPOSITIONS:
        qualifier = qualifier[1:]  # "Yes, open until 8 pm." repeats the question's "open"
    rule = "negated_question" if negated else "echo" if reply.echo_sign else "yes_no"
    extra = reply.echo_predicate
    if extra and {w.lower() for w in extra} <= own:
        extra = ()  # "Yes, it is safe." restates the question
    if (extra and (not same or reply.lead is None)) or (
        reply.unplaced and reply.echo_sign is None and reply.unplaced[0].lower() not in PREPOSITIONS
    ):
        if reply.lead is None:
            return []  # "The employee must apply.": a sentence of its own, no yes or no
        # "No - a doctor must decide.": the no, then the sentence of its own as written
        return [
            (clause_.render(morph, reply.lead), "negated_question" if negated else "yes_no"),
            (sentence(reply.unplaced), "as_written"),
        ]
    if (extra and clause_.verb) or (reply.unplaced and reply.echo_sign is None):
        # a predicate the rules do not place: the yes or no, and the rest as written
        statement = asked.render(morph, reply.lead or reply.sign, tail=qualifier)
        return [(statement, rule), (sentence(reply.unplaced), "as_written")]
    if same:
        swapped = _swap_value(asked, qualifier)
        if swapped is not None and reply.sign == "-":
            # "Does it open at 8?" "No, at 9.": the reply's hour alone, which the passage
            # can confirm ("No, not after 32 weeks.": the question's value and the reply's
            # both denied)
            if not reply.qualifier_denied:
                return [(swapped.render(morph, "+"), rule)]
            return [(asked.render(morph, "-"), rule), (swapped.render(morph, "-"), rule)]
        if swapped is not None:
            # "Does it open before 7 am?" "Yes, at 6 am.": the reply's hour stands for the
            # question's (which it answers); a "no" keeps its qualifier as a tail
            return [(swapped.render(morph, "+"), rule)]
        filled = _fill_any(asked, qualifier) if reply.sign == "+" else None
        if filled is not None:
            # "Do I get any extra days?" "Yes, two extra days.": the reply's value is what
            # "any" asked for
            return [(filled.render(morph, "+"), rule)]
        out = [(asked.render(morph, reply.sign, tail=qualifier), rule)]
        if extra:
            echo = replace(clause_, aux=reply.echo_aux or clause_.aux, predicate=extra)
            out.append((echo.render(morph, reply.echo_sign or "+"), "echo_predicate"))
        return out
    if reply.lead is None:
        return []  # "The office does not open.": another subject and no yes or no
    # "No, the employee must." — the question's statement denied, the other one affirmed
    other = replace(asked, subject=subject)
    return [
        # "No" denies the question as asked: "does not have to pay", not "must not pay"
        (
            (asked if (reply.lead or "+") == "+" else clause_).render(morph, reply.lead or "+"),
            rule,
        ),
        (other.render(morph, reply.echo_sign or "+", tail=qualifier), "echo_subject"),
    ]


#: Words that ask for an amount or a thing at the end of a yes/no question ("any", "a").
_OPEN = frozenset({"any", "some", "a", "an"})


def _fill_any(asked: Clause, qualifier: tuple[str, ...]) -> Clause | None:
    """The question's clause with the noun phrase it ends on ("any extra days", "a fee")
    given the reply's value: a number takes the place of "any" ("three free sessions"), a
    noun phrase led by a number or a determiner takes the phrase's place ("two extra days",
    "your passport"), an amount of money follows "a fee" ("a fee of £20"). ``None`` when
    the question ends on no such phrase or the reply gives no such value."""
    words = [w.lower() for w in asked.predicate]
    at = max((i for i, w in enumerate(words) if w in _OPEN), default=-1)
    if not 0 <= at < len(words) - 1 or not qualifier:
        return None
    if any(w in PREPOSITIONS for w in words[at + 1 :]):
        return None
    head = qualifier[0].lower()
    kept = asked.predicate[:at]
    if len(qualifier) == 1 and _is_value(qualifier[0]) and words[at] in ("any", "some"):
        filled = (*kept, qualifier[0], *asked.predicate[at + 1 :])
    elif len(qualifier) == 1 and qualifier[0][:1] in "£$€" and words[at] in ("a", "an"):
        filled = (*asked.predicate, "of", qualifier[0])
    elif len(qualifier) > 1 and (_is_value(qualifier[0]) or head in DETERMINERS - _OPEN):
        filled = (*kept, *qualifier)
    else:
        return None
    return replace(asked, predicate=filled)


def _swap_value(asked: Clause, qualifier: tuple[str, ...]) -> Clause | None:
    """The question's clause with its prepositional value ("before 7 am") replaced by the
    reply's ("at 6 am", "from day four" for "from the first day"); None unless both are a
    preposition and a value (:func:`_is_value`)."""
    if len(qualifier) < 2 or qualifier[0].lower() not in PREPOSITIONS:
        return None
    if not any(_is_value(w) for w in qualifier):
        return None
    words = list(asked.predicate)
    for i in range(len(words) - 1):
        at = i + 2 if words[i + 1].lower() == "the" and i + 2 < len(words) else i + 1
        if words[i].lower() in PREPOSITIONS and _is_value(words[at]):
            end = at + 1
            while end < len(words) and words[end].lower() not in PREPOSITIONS:
                end += 1
            return replace(asked, predicate=(*words[:i], *qualifier, *words[end:]))
    return None


#: Words that are a value by themselves: number words, ordinals, weekdays and months ("may"
#: is far more often the modal).
_VALUE_WORDS = (
    frozenset(
        "one two three four five six seven eight nine ten eleven twelve twenty thirty first "
        "second third fourth fifth sixth seventh eighth ninth tenth last".split()
    )
    | WEEKDAYS
    | (MONTHS - {"may"})
)


def _is_value(word: str) -> bool:
    """A digit-led word ("7", "6pm", "£20") or a value word ("four", "first", "Friday")."""
    plain = word.lower().rstrip(".,;:")
    return plain[:1].isdigit() or word[:1] in "£$€" or plain in _VALUE_WORDS


def _alike(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same noun phrase, whatever its determiners ("the employer", "employer"), or a
    shorter mention of it ("the clinic" for "the legal advice clinic")."""
    x, y = _bare(a), _bare(b)
    if x == y:
        return True
    short, full = (x, y) if len(x) < len(y) else (y, x)
    return bool(short) and short[-1] == full[-1] and set(short) <= set(full)


def _bare(words: tuple[str, ...]) -> list[str]:
    return [w.lower() for w in words if w.lower() not in DETERMINERS]
