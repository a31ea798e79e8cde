"""English rules for reading a short answer with its question.

The question's form says how a bare reply becomes a statement:

* **auxiliary inversion** (a yes/no question): "Can pregnant women take ibuprofen?" + "No." ->
  "Pregnant women cannot take ibuprofen."; do-support is undone ("Does X need Y?" + "Yes." ->
  "X needs Y."); a negated question ("Isn't X free?") asks about the positive statement, so
  "Yes" affirms "X is free" and "No" denies it;
* **wh-questions**: the reply fills the question's gap ("When can X apply?" + "After six
  months." -> "X can apply after six months."; "Who approves expenses?" + "Anna Schmidt." ->
  "Anna Schmidt approves expenses."; "How many tablets can an adult take?" + "Eight." -> "An
  adult can take eight tablets.");
* **echoes and pronouns**: "Yes, they can." / "It does, in the morning." / "No, the employee
  must." reuse the question's own noun phrases for the pronoun or the other subject.

A rule that cannot place the reply returns nothing, and the answer is decomposed as it was
written: the guard then finds no verifiable statement and the policy's ``on_error`` decides.
Nothing here is a parser of English at large; each rule is small and named in the statements
it makes (``ResolvedStatement.rule``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from guardrail.judges.local.morph import Morphology

LANGUAGE = "en"

_BE = frozenset({"is", "are", "was", "were", "am"})
_DO = frozenset({"do", "does", "did"})
_HAVE = frozenset({"has", "have", "had"})
_MODALS = frozenset({"can", "could", "will", "would", "should", "shall", "may", "might", "must"})
_AUX = _BE | _DO | _HAVE | _MODALS
#: Negated auxiliaries, by their positive form.
_NEGATED = {
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "can't": "can",
    "cannot": "can",
    "couldn't": "could",
    "won't": "will",
    "wouldn't": "would",
    "shouldn't": "should",
    "mustn't": "must",
    "hasn't": "has",
    "haven't": "have",
    "hadn't": "had",
    "doesn't": "does",
    "don't": "do",
    "didn't": "did",
    "mightn't": "might",
    "shan't": "shall",
}
_ABBREVIATIONS = frozenset("dr mr mrs ms prof st jr sr".split())
_PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it", "there", "this", "that"})
#: The question's first and second person, as the answer's statement names them.
_PERSON = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
}
_DETERMINERS = frozenset(
    "the a an this that these those my your our their his her its some any each every no "
    "all both".split()
)
_PREPOSITIONS = frozenset(
    "in on at for with from to during after before by under over within without until "
    "since through between among about into onto near per via across".split()
)
#: Words after "be" that begin a predicate (besides participles, "-ing" forms and
#: prepositions): a short list of the adjectives questions ask about.
_PREDICATE_ADJECTIVES = frozenset(
    """safe unsafe open closed free available unavailable possible impossible necessary
    needed legal illegal fine ok okay mandatory compulsory optional valid invalid true false
    correct right wrong eligible entitled able unable enough sufficient dangerous harmful risky
    healthy suitable affordable accessible refundable due late early ready busy full empty
    expensive cheap common rare normal contagious effective permitted allowed required covered
    included enough responsible liable essential important possible""".split()
)
#: Common verbs the offline lexicon may lack; recognised as a question's main verb.
_EXTRA_VERBS = frozenset(
    "register issue renew appeal refund apply travel enrol enroll vote claim qualify".split()
)
_POSITIVE = (
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
_NEGATIVE = (
    "no",
    "nope",
    "not really",
    "not at all",
    "absolutely not",
    "certainly not",
    "definitely not",
    "of course not",
    "never",
)
_LEAD = re.compile(
    r"^\s*(?P<word>"
    + "|".join(re.escape(w) for w in sorted((*_POSITIVE, *_NEGATIVE), key=len, reverse=True))
    + r")\b\s*(?P<sep>[,.;:!—–-]+)?\s*",
    re.IGNORECASE,
)
_WH = frozenset({"who", "whom", "what", "which", "when", "where", "how", "whose"})
_HOW = frozenset({"many", "much", "often", "long", "far", "old", "soon", "early", "late"})
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_CLOCK = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?$|^\d{1,2}:\d{2}$", re.I)
_CLOCK_WORD = re.compile(r"^(?:\d{1,2}(?::\d{2})?|noon|midnight)$", re.I)
#: Longest reply sentence (in words) read as leaning on its question.
MAX_WORDS = 14
#: Longest bare value ("On the second floor of the main building") read as filling a
#: wh-question's gap.
MAX_VALUE_WORDS = 10

Sign = Literal["+", "-"]


@dataclass(frozen=True)
class Clause:
    """A question turned declarative: subject, auxiliary, predicate (the main verb first when
    the auxiliary is do/does/did or a modal)."""

    subject: tuple[str, ...]
    aux: str
    predicate: tuple[str, ...]
    verb: bool  # the predicate starts with a main verb (do-support or a modal)

    def render(
        self,
        morph: Morphology,
        sign: Sign = "+",
        *,
        fill: tuple[str, ...] = (),
        after_verb: bool = False,
        tail: tuple[str, ...] = (),
    ) -> str:
        """The statement; ``fill`` (the reply's value) goes after the main verb or at the
        end, ``tail`` (a qualifier such as "after three months") at the end."""
        aux = self.aux
        if self.subject and self.subject[0].lower() == "you" and aux == "am":
            aux = "are"
        predicate = list(self.predicate)
        if self.verb and aux in _DO and predicate:
            if sign == "+":
                form = {"does": "s", "did": "ed"}.get(aux, "")
                head = [_inflect(morph, predicate[0], form)]
            else:
                head = [aux, "not", predicate[0]]
            words = [*self.subject, *head]
        else:
            negated = {"can": "cannot"}.get(aux, f"{aux} not") if sign == "-" else aux
            words = [*self.subject, *negated.split()]
            if self.verb and predicate:
                words.append(predicate[0])
        rest = predicate[1:] if self.verb else predicate
        if fill and after_verb and self.verb:
            words += [*fill, *rest]
        else:
            words += [*rest, *fill]
        return sentence([*words, *tail])


def sentence(words: list[str] | tuple[str, ...]) -> str:
    """Words joined into one sentence: first letter capitalised, one closing period."""
    text = " ".join(w for w in words if w).strip(" ,;:")
    text = re.sub(r"\s+([,;:])", r"\1", text)
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!")) else f"{text}."


@functools.cache
def _morph() -> Morphology:
    from guardrail.judges.local.lexicon import Lexicon

    return Lexicon.load().morph


def _inflect(morph: Morphology, verb: str, form: str) -> str:
    from guardrail.judges.local.morph import regular_inflect

    base = verb.lower()
    if form == "ed" and morph.inflect(base, "ed") == regular_inflect(base, "ed"):
        return _regular_past(base)  # the lexicon doubles "open" -> "openned"
    return morph.inflect(base, form)


def _doubled(base: str) -> str:
    return f"{base}{base[-1:]}ed"


def _regular_past(base: str) -> str:
    """A regular past tense; the last consonant doubles only in one-syllable words
    ("stopped", but "opened")."""
    if base.endswith("e"):
        return f"{base}d"
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        return f"{base[:-1]}ied"
    syllables = len(re.findall(r"[aeiouy]+", base))
    if syllables == 1 and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", base):
        return _doubled(base)
    return f"{base}ed"


def _words(text: str) -> list[str]:
    """Whitespace words with the question's or reply's outer punctuation removed."""
    out = []
    for raw in text.replace("’", "'").split():
        word = raw.strip('"“”()[],;:!?')
        if word.endswith(".") and word.lower().rstrip(".") not in _ABBREVIATIONS:
            word = word.rstrip(".")
        if word:
            out.append(word)
    return out


def _person(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The asker's "I", "my", "we" as the statement's "you", "your"."""
    return tuple(_PERSON.get(w.lower(), w) for w in words)


def _is_verb(word: str, morph: Morphology) -> bool:
    low = word.lower()
    return low in morph.bases or low in _EXTRA_VERBS


def _is_participle(word: str, morph: Morphology) -> bool:
    found = morph.guess_base(word.lower())
    if found is not None and found[1] in ("ed", "en", "ing"):
        return True
    return word.lower().endswith("ing") and len(word) > 5


def _is_finite(word: str, morph: Morphology) -> bool:
    low = word.lower()
    if low in _AUX or low in _NEGATED:
        return True
    found = morph.analyze(low)
    return found is not None and found[1] in ("s", "ed") and not word[:1].isupper()


# -- questions ------------------------------------------------------------------------------


def question_sentence(question: str) -> list[str]:
    """The words of the question's last interrogative sentence (the one a reply answers)."""
    pieces = [p for p in re.split(r"(?<=[.!?])\s+", question.strip()) if p.strip()]
    asked = [p for p in pieces if p.rstrip().endswith("?")]
    chosen = asked[-1] if asked else (pieces[-1] if pieces else "")
    words = _words(chosen)
    while words and words[0].lower() in ("so", "and", "but", "also", "please", "then"):
        words = words[1:]
    return words


def _subject_end(
    aux: str, rest: list[str], morph: Morphology, *, strict: bool = False
) -> int | None:
    """Where the subject after ``aux`` ends (index into ``rest``); None when no rule says.
    ``strict``: only a predicate word ends it (no guess from a preposition or the length)."""
    if not rest:
        return None
    if aux in _BE:
        if rest[0].lower() in _PRONOUNS:
            return 1
        preposition = None
        for i in range(1, len(rest)):
            low, prev = rest[i].lower(), rest[i - 1].lower()
            if prev in _DETERMINERS or prev in _PREPOSITIONS:
                continue
            if low in _PREDICATE_ADJECTIVES or _is_participle(rest[i], morph):
                return i
            if low in _DETERMINERS and low not in ("no", "all", "both", "each", "every"):
                return i
            if low in _PREPOSITIONS and low != "of" and preposition is None:
                preposition = i
        if strict:
            return None
        if preposition is not None:
            return preposition
        if len(rest) == 2:
            return 1
        return 2 if len(rest) == 3 and rest[0].lower() in _DETERMINERS else None
    candidates = [
        i
        for i in range(1, len(rest))
        if _is_verb(rest[i], morph)
        and rest[i - 1].lower() not in _DETERMINERS | _PREPOSITIONS | {"'s", "of"}
        and not rest[i][:1].isupper()
    ]
    for i in candidates:
        if i + 1 not in candidates:
            return i
    if rest[0].lower() in _PRONOUNS | {"i"}:
        return 1
    # a verb the lexicon does not know: a one-word subject, or a determiner and its noun
    end = 2 if rest[0].lower() in _DETERMINERS else 1
    if end < len(rest) and rest[end].islower() and rest[end] not in _PREPOSITIONS:
        return end
    return None


def clause(aux_word: str, rest: list[str]) -> tuple[Clause, bool] | None:
    """The declarative clause of ``aux_word rest...`` and whether the question was negated."""
    morph = _morph()
    low = aux_word.lower()
    negated = low in _NEGATED or (bool(rest) and rest[0].lower() == "not")
    aux = _NEGATED.get(low, low)
    if rest and rest[0].lower() == "not":
        rest = rest[1:]
    if aux not in _AUX:
        return None
    end = _subject_end(aux, rest, morph)
    if end is None or end >= len(rest):
        return None
    subject = _person(rest[:end])
    if subject and subject[0] not in ("I",) and subject[0][:1].isupper():
        first = subject[0]
        if first.lower() in _DETERMINERS or first.lower() in _PRONOUNS:
            subject = (first.lower(), *subject[1:])
    predicate = _person(rest[end:])
    is_verb = aux not in _BE and not (aux in _HAVE and not _is_verb(predicate[0], morph))
    return Clause(subject, aux, predicate, is_verb), negated


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
    found = _LEAD.match(rest)
    if found is not None:
        word = found["word"].lower()
        if word in _POSITIVE and not found["sep"] and rest[found.end() :].strip():
            return None  # "Right after the scan ..." is no yes
        lead = "+" if word in _POSITIVE else "-"
        rest = rest[found.end() :]
    words = _words(rest)
    if not words:
        return Reply(lead) if lead else None
    echo = _echo(words)
    if echo is not None:
        return replace(echo, lead=lead, unplaced=tuple(words))
    if _has_finite(words):
        # "Yes, with milk is fine.": the yes is read, the rest is checked as written
        return None if lead is None else Reply(lead, unplaced=tuple(words))
    if words[0].lower() == "not":
        return None if lead == "+" else Reply("-", qualifier=tuple(words[1:]))
    return None if lead is None else Reply(lead, qualifier=tuple(words))


def _has_finite(words: list[str] | tuple[str, ...]) -> bool:
    """Whether ``words`` may hold a verb of their own, so they are no bare value: an
    auxiliary, a contraction ("here's"), or a known verb form not led by a determiner, a
    preposition or a number ("the post office" and "every check" are nouns; "am" after a
    number is a time of day)."""
    morph = _morph()
    for i, word in enumerate(words):
        low = word.lower()
        prev = words[i - 1].lower() if i else ""
        if (low == "am" and prev[:1].isdigit()) or (word == "May" and i):
            continue  # "7 am", "3 May"
        if _is_finite(word, morph) or re.search(r"'(?:s|re|ve|ll|d)$", low):
            return True
        if word[:1].isupper() or not i or prev in _DETERMINERS or prev in _PREPOSITIONS:
            continue
        if prev[:1].isdigit() or prev in _LOWER_FIRST:
            continue
        found = morph.analyze(low)
        if (found is not None and found[1] in ("", "s", "ed")) or low in _EXTRA_VERBS:
            return True
    return False


def _echo(words: list[str]) -> Reply | None:
    """ "they can", "it does not", "the employee must", "it is closed, after ..."."""
    for i in range(min(len(words), 5)):
        low = words[i].lower()
        if low in _AUX or low in _NEGATED or low == "never":
            if i == 0:
                return None
            sign: Sign = "-" if low in _NEGATED or low == "never" else "+"
            aux = _NEGATED.get(low, low)
            after = words[i + 1 :]
            if after and after[0].lower() in ("not", "never"):
                sign, after = "-", after[1:]
            if low == "never" and after and after[0].lower() in _AUX:
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
        if low in _PREPOSITIONS or not words[i][:1].isalpha():
            return None
    return None


def _split_qualifier(words: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if words and words[0].lower() in _PREPOSITIONS | {"every", "only", "right", "up"}:
        return (), tuple(words)
    return tuple(words), ()


# -- statements -----------------------------------------------------------------------------


Made = tuple[str, str]  # (statement, rule)


def resolve_polar(clause_: Clause, negated: bool, reply: Reply) -> list[Made]:
    """Statements for a yes/no question's reply."""
    morph = _morph()
    subject = _person(reply.echo_subject)
    same = (
        not subject
        or subject[0].lower() in _PRONOUNS
        or subject[0].lower() == "you"
        or _alike(subject, clause_.subject)
    )
    asked = clause_
    if reply.echo_aux in _MODALS and (clause_.aux in _MODALS or clause_.aux in _DO):
        asked = replace(clause_, aux=reply.echo_aux)  # "Does it cause fever?" "It can."
    own = {w.lower() for w in (*clause_.predicate, *clause_.subject)}
    qualifier = reply.qualifier if not {w.lower() for w in reply.qualifier} <= own else ()
    rule = "negated_question" if negated else "echo" if reply.echo_sign else "yes_no"
    extra = reply.echo_predicate
    if extra and {w.lower() for w in extra} <= own:
        extra = ()  # "Yes, it is safe." restates the question
    if (extra and (not same or reply.lead is None)) or (
        reply.unplaced
        and reply.echo_sign is None
        and reply.unplaced[0].lower() not in _PREPOSITIONS
    ):
        return []  # "Yes, ibuprofen is safe ...": a sentence of its own after the yes
    if (extra and clause_.verb) or (reply.unplaced and reply.echo_sign is None):
        # a predicate the rules do not place: the yes or no, and the rest as written
        statement = asked.render(morph, reply.lead or reply.sign, tail=qualifier)
        return [(statement, rule), (sentence(reply.unplaced), "as_written")]
    if same:
        out = [(asked.render(morph, reply.sign, tail=qualifier), rule)]
        if extra:
            echo = replace(clause_, aux=reply.echo_aux or clause_.aux, predicate=extra)
            out.append((echo.render(morph, reply.echo_sign or "+"), "echo_predicate"))
        return out
    # "No, the employee must." — the question's statement denied, the other one affirmed
    other = replace(asked, subject=subject)
    if extra:
        other = replace(other, predicate=extra, verb=False)
    return [
        (asked.render(morph, reply.lead or "+"), rule),
        (other.render(morph, reply.echo_sign or "+", tail=qualifier), "echo_subject"),
    ]


def _alike(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same noun phrase, whatever its determiners ("the employer", "employer")."""
    return _bare(a) == _bare(b)


def _bare(words: tuple[str, ...]) -> list[str]:
    return [w.lower() for w in words if w.lower() not in _DETERMINERS]


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
    if words[0].lower() in _PREPOSITIONS and len(words) > 1 and words[1].lower() in _WH:
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
    noun: list[str] = []
    if wh in ("which", "what", "whose", "how many", "how much"):
        has_aux = any(w.lower() in _AUX or w.lower() in _NEGATED for w in words[i:])
        limit = 4 if has_aux else 1
        morph = _morph()
        while i < len(words) and len(noun) < limit:
            low = words[i].lower()
            if low in _AUX or low in _NEGATED or (noun and _is_finite(words[i], morph)):
                break
            noun.append(words[i])
            i += 1
    return WhQuestion(preposition, wh, tuple(noun), tuple(words[i:]))


def _value(q: WhQuestion, reply: list[str]) -> tuple[str, ...]:
    """The reply as the phrase that fills the question's gap."""
    words = list(reply)
    if words and (words[0].lower() in _LOWER_FIRST or words[0][:1].isdigit()):
        words[0] = words[0].lower()
    if q.wh in ("how many", "how much") and q.noun:
        answered = {w.lower().rstrip("s") for w in words}
        for j, noun in enumerate(q.noun):
            if noun.lower().rstrip("s") in answered:
                return (*words, *q.noun[j + 1 :])
        return (*words, *q.noun) if not _has_unit(words) else tuple(words)
    first = words[0].lower() if words else ""
    if first in _PREPOSITIONS or first in ("every", "only", "once", "twice"):
        return tuple(words)
    if q.preposition:
        return (q.preposition, *words)
    if q.wh == "what" and q.noun and q.noun[0].lower() == "time":
        return ("at", *words)
    if q.wh in ("when", "where"):
        prep = _preposition_for(words, q.wh)
        return (prep, *words) if prep else tuple(words)
    return tuple(words)


def _has_unit(words: list[str]) -> bool:
    return len(words) > 1 and any(not w[:1].isdigit() for w in words[1:])


_LOWER_FIRST = frozenset(
    [
        *_PREPOSITIONS,
        *_DETERMINERS,
        "every",
        "only",
        "once",
        "twice",
        "about",
        "around",
        "up",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "half",
        "less",
        "more",
        "less",
        "never",
        "always",
        "daily",
        "weekly",
        "monthly",
    ]
)


def _preposition_for(words: list[str], wh: str) -> str | None:
    text = " ".join(words)
    first = words[0].lower() if words else ""
    if wh == "where":
        return "in"
    if first in _WEEKDAYS or any(w.lower() in _MONTHS for w in words):
        return "on"
    if re.fullmatch(r"\d{4}", text):
        return "in"
    if _CLOCK.match(text) or (_CLOCK_WORD.match(first) and len(words) <= 2):
        return "at"
    return None


def resolve_wh(q: WhQuestion, reply: list[str]) -> list[Made]:
    """The statement a value reply makes for a wh-question, or [] when no rule places it."""
    morph = _morph()
    value = _value(q, reply)
    rest = list(q.rest)
    if not rest:
        return []
    head = rest[0].lower()
    if head not in _AUX and head not in _NEGATED:
        if q.preposition or q.wh not in ("who", "what", "which", "whose", "how many", "how much"):
            return []
        return [(sentence([*value, *_person(rest)]), "wh_subject")]
    after = rest[1:]
    if after and after[0].lower() == "there":
        return [(sentence(["There", head, *value, *_person(after[1:])]), "wh_there")]
    starts_predicate = bool(after) and (
        (head in _BE and _starts_be_predicate(after[0], morph))
        or (head not in _BE and _is_verb(after[0], morph))
    )
    if q.wh in ("who", "what") and not q.noun and head in _BE and not starts_predicate:
        return [(sentence([*value, head, *_person(after)]), "wh_identity")]
    if starts_predicate and not q.preposition and q.wh not in ("when", "where", "how often"):
        return [(sentence([*value, head, *_person(after)]), "wh_subject")]
    if head in _BE and _subject_end(head, after, morph, strict=True) is None:
        # "When is the next payroll date?" — everything after "is" is the subject
        return [(sentence([*_person(after), head, *value]), "wh_value")]
    found = clause(rest[0], after)
    if found is None:
        return []
    made, _negated = found
    object_gap = q.wh in ("how many", "how much", "what", "which", "whose") and not q.preposition
    stranded = bool(made.predicate) and made.predicate[-1].lower() in _PREPOSITIONS
    return [
        (
            made.render(morph, "+", fill=value, after_verb=object_gap and not stranded),
            "wh_value",
        )
    ]


def _starts_be_predicate(word: str, morph: Morphology) -> bool:
    low = word.lower()
    return (
        low in _PREDICATE_ADJECTIVES
        or low in _PREPOSITIONS
        or low == "not"
        or _is_participle(word, morph)
    )


def resolve_sentence(question: str, reply_text: str) -> list[Made]:
    """Self-contained statements for one reply sentence that leans on ``question``; [] when
    the sentence stands on its own or no rule applies."""
    words = _words(reply_text)
    if not words or len(words) > MAX_WORDS:
        return []
    asked = question_sentence(question)
    if not asked:
        return []
    first = asked[0].lower()
    if first in _AUX or first in _NEGATED:
        reply = read_reply(reply_text)
        found = clause(asked[0], asked[1:])
        if reply is None or found is None:
            return []
        made, negated = found
        return [(text, rule) for text, rule in resolve_polar(made, negated, reply) if text]
    q = wh_question(asked)
    if q is None or len(words) > MAX_VALUE_WORDS or _has_finite(words):
        return []
    if _LEAD.match(reply_text) is not None and read_reply(reply_text) is not None:
        return []  # "Yes." to a wh-question: nothing to place
    return [(text, rule) for text, rule in resolve_wh(q, words) if text]


# -- abstentions ----------------------------------------------------------------------------

_ABSTAIN = re.compile(
    r"""^(?:(?:sorry|unfortunately|i'?m\ afraid|i\ am\ afraid)[,.!]?\s+)?(?:
      i\s+(?:really\s+)?(?:don'?t|do\s+not)\s+know
    | i\s+(?:don'?t|do\s+not)\s+have\s+(?:any\s+|enough\s+)?(?:information|data|details)
    | i(?:'m|\s+am)\s+(?:not\s+(?:sure|certain|able\s+to)|unsure|unable\s+to)
    | i\s+(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|was\s+unable\s+to)\s+
        (?:answer|say|tell|find|help|determine|confirm|provide|verify|know)
    | i\s+(?:have|had)\s+no\s+(?:information|data|details|answer)
    | (?:the\s+)?(?:provided\s+|given\s+|retrieved\s+|available\s+)?
        (?:sources?|context|passages?|documents?|information|texts?)\s+
        (?:provided\s+|given\s+)?(?:do|does|did)\s*(?:n'?t|\s+not)\s+
        (?:say|mention|contain|provide|include|state|specify|answer|cover|tell|address)
    | (?:i\s+am\s+|i'm\s+)?unable\s+to\s+(?:answer|say|tell|find|determine|confirm)
    | there\s+is\s+(?:no|not\s+enough)\s+information
    | (?:no|not\s+enough)\s+information\s+(?:is\s+)?(?:available|given|provided|about|on)
    | that\s+is\s+not\s+(?:something\s+i\s+can|covered)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_COURTESY = re.compile(
    r"^(?:sorry|i'?m\s+sorry|i\s+am\s+sorry|i\s+apologi[sz]e|unfortunately|thank\s+you|thanks"
    r"|please\s+(?:ask|contact|consult|check|see|refer|speak|talk)"
    r"|you\s+(?:may|might)\s+want\s+to\s+(?:ask|contact|consult|check|speak|talk))\b",
    re.IGNORECASE,
)


#: A refusal that goes on to say something ("I don't know the hour, but it opens at 8").
_GOES_ON = re.compile(r"\b(?:but|however|although|though|except)\b", re.IGNORECASE)


def abstains(sentences: list[str]) -> bool:
    """Whether the answer's sentences only decline to answer (at least one says so, the
    others are courtesy: "Sorry.", "Please ask your doctor.")."""
    said = [s.strip().replace("’", "'") for s in sentences if s.strip()]
    refusals = [s for s in said if _ABSTAIN.match(s) and not _GOES_ON.search(s)]
    return bool(refusals) and all(s in refusals or _COURTESY.match(s) for s in said)
