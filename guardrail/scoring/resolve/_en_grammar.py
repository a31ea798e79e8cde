"""English grammar the resolution rules share: word classes, the verbs, and a yes/no
question turned declarative (:class:`Clause`)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from guardrail.judges.local.morph import Morphology

BE = frozenset({"is", "are", "was", "were", "am"})
DO = frozenset({"do", "does", "did"})
HAVE = frozenset({"has", "have", "had"})
MODALS = frozenset({"can", "could", "will", "would", "should", "shall", "may", "might", "must"})
AUX = BE | DO | HAVE | MODALS
#: Negated auxiliaries, by their positive form.
NEGATED = {
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
#: Verbs that open a verb-noun phrase ("take place", "have time"): in a run of words that may
#: be verbs, such a verb is the main one and the next word its object.
LIGHT_VERBS = frozenset("take have make give get do pay keep".split())
ABBREVIATIONS = frozenset("dr mr mrs ms prof st jr sr".split())
PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it", "there", "this", "that"})
#: The question's first and second person, as the answer's statement names them.
PERSON = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
    "i'm": "you're",
    "im": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "we're": "you're",
    "we've": "you've",
    "we'll": "you'll",
}
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
DETERMINERS = frozenset(
    "the a an this that these those my your our their his her its some any each every no "
    "all both".split()
)
PREPOSITIONS = frozenset(
    "in on at for with from to during after before by under over within without until "
    "since through between among about into onto near per via across".split()
)
#: Words after "be" that begin a predicate (besides participles, "-ing" forms and
#: prepositions): a short list of the adjectives questions ask about.
PREDICATE_ADJECTIVES = frozenset(
    """safe unsafe open closed free available unavailable possible impossible necessary
    needed legal illegal fine ok okay mandatory compulsory optional valid invalid true false
    correct right wrong eligible entitled able unable enough sufficient dangerous harmful risky
    healthy suitable affordable accessible refundable due late early ready busy full empty
    expensive cheap common rare normal contagious effective permitted allowed required covered
    included enough responsible liable essential important possible""".split()
)
#: Common verbs the offline lexicon may lack; recognised as a question's main verb.
EXTRA_VERBS = frozenset(
    """register issue renew appeal refund apply travel enrol enroll vote claim qualify advise
    bake bathe behave breastfeed breathe contact depart dial dispose email exchange expire
    inject insure lift load lock notify owe pack park pump queue recover refill relax reopen
    request reserve rinse sail shave shower smoke submit swallow update upload vaccinate weigh
    board ring""".split()
)
LOWER_FIRST = frozenset(
    [
        *PREPOSITIONS,
        *DETERMINERS,
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
        "not",
        "always",
        "next",
        "last",
        "same",
        "following",
        "previous",
        "daily",
        "weekly",
        "monthly",
    ]
)

Sign = Literal["+", "-"]
#: A statement and the name of the rule that made it.
Made = tuple[str, str]


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
        if self.verb and aux in DO and predicate:
            if sign == "+":
                form = {"does": "s", "did": "ed"}.get(aux, "")
                head = [inflect(morph, predicate[0], form)]
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
def morphology() -> Morphology:
    from guardrail.judges.local.lexicon import Lexicon

    return Lexicon.load().morph


def inflect(morph: Morphology, verb: str, form: str) -> str:
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


def split_words(text: str) -> list[str]:
    """Whitespace words with the question's or reply's outer punctuation removed."""
    out: list[str] = []
    raws = text.replace("’", "'").split()
    for i, raw in enumerate(raws):
        word = raw.strip('"“”()[],;:!?')
        if word and not word.strip("-–—"):
            # a dash: "to" in a range ("10 - 1", "8 am - 10 pm"), else nothing ("There is - 20")
            following = raws[i + 1][:1] if i + 1 < len(raws) else ""
            ranged = (
                bool(out)
                and following.isdigit()
                and (out[-1][-1:].isdigit() or out[-1].lower() in ("am", "pm", "a.m", "p.m"))
            )
            if ranged:
                out.append("to")
            continue
        if word.endswith(".") and word.lower().rstrip(".") not in ABBREVIATIONS:
            word = word.rstrip(".")
        if word:
            out.append(word)
    return out


def addressed(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The asker's "I", "my", "we" as the statement's "you", "your" ("I am" as "you are")."""
    out: list[str] = []
    for i, word in enumerate(words):
        low = word.lower()
        if i and words[i - 1].lower() == "i" and low in ("am", "was"):
            out.append("are" if low == "am" else "were")
        else:
            out.append(PERSON.get(low, word))
    return tuple(out)


def is_verb(word: str, morph: Morphology) -> bool:
    low = word.lower()
    return low in morph.bases or low in EXTRA_VERBS


def is_participle(word: str, morph: Morphology) -> bool:
    found = morph.guess_base(word.lower())
    if found is not None and found[1] in ("ed", "en", "ing"):
        return True
    return word.lower().endswith("ing") and len(word) > 5


def is_finite(word: str, morph: Morphology) -> bool:
    low = word.lower()
    if low in AUX or low in NEGATED:
        return True
    found = morph.analyze(low)
    return found is not None and found[1] in ("s", "ed") and not word[:1].isupper()


def asked_piece(question: str) -> str:
    """The question's last interrogative sentence (the one a reply answers), as written."""
    pieces = [p for p in re.split(r"(?<=[.!?])\s+", question.strip()) if p.strip()]
    asked = [p for p in pieces if p.rstrip().endswith("?")]
    return asked[-1] if asked else (pieces[-1] if pieces else "")


def question_sentence(question: str) -> list[str]:
    """The words of the question's last interrogative sentence (the one a reply answers)."""
    chosen = asked_piece(question)
    tagged = _tag_question(chosen)
    words = tagged if tagged is not None else _asked_clause(_without_trailing_premise(chosen))
    while words and words[0].lower() in ("so", "and", "but", "also", "please", "then"):
        words = words[1:]
    if words and words[0].lower().replace("’", "'") in _WH_CONTRACTIONS:
        words = [words[0].split("'")[0], "is", *words[1:]]
    return words


_TAG = re.compile(
    r"^(?P<body>.+?),\s*(?:(?P<aux>[a-z]+(?:n't)?)(?:\s+not)?\s+"
    r"(?:i|you|we|they|he|she|it|there|that)|right|correct|yeah|no)\s*\?\s*$",
    re.IGNORECASE,
)
_CONTRACTED = {"'s": "is", "'re": "are"}


def _tag_question(text: str) -> list[str] | None:
    """A statement with a question tag ("Children don't pay, do they?", "There's no fee,
    is there?") as the yes/no question it asks about its positive statement ("Do children
    pay?", "Is there a fee?"): a yes affirms that statement, a no denies it."""
    found = _TAG.match(text.strip().replace("’", "'"))
    if found is None:
        return None
    tag_aux = (found["aux"] or "").lower()
    if tag_aux and tag_aux not in AUX and tag_aux not in NEGATED:
        return None
    words: list[str] = []
    for word in split_words(found["body"]):
        low = word.lower()
        ending = next((e for e in _CONTRACTED if low.endswith(e) and len(low) > len(e)), None)
        if ending and low[: -len(ending)] in PRONOUNS:
            words += [word[: -len(ending)], _CONTRACTED[ending]]
        else:
            words.append(word)
    for j, word in enumerate(words[1:], start=1):
        low = word.lower()
        if low in AUX or low in NEGATED:
            rest = words[:j] + words[j + 1 :]
            if j + 1 < len(words) and words[j + 1].lower() == "not":
                rest = words[:j] + words[j + 2 :]
            rest = ["a" if w.lower() == "no" else w for w in rest]  # "no fee" -> "a fee"
            return [NEGATED.get(low, low), *rest]
    aux = NEGATED.get(tag_aux, tag_aux)
    if aux and aux not in DO:
        return None
    morph = morphology()
    end = subject_end("do", words, morph)
    if end is None or end >= len(words):
        return None
    found_base = morph.guess_base(words[end].lower())
    base = found_base[0] if found_base is not None else words[end]
    if not aux:  # "The clinic opens at 8, right?"
        aux = "does" if base.lower() != words[end].lower() else "do"
    return [aux, *words[:end], base, *words[end + 1 :]]


def agrees_with_negative_tag(question: str) -> bool:
    """Whether ``question`` states a negative and asks "right?" or "correct?" ("I shouldn't
    take it with milk, right?"): there a "right" or "correct" agrees with the negative."""
    found = _TAG.match(asked_piece(question).strip().replace("’", "'"))
    if found is None or found["aux"]:
        return False
    body = [w.lower() for w in split_words(found["body"])]
    return any(w in NEGATED or w in ("not", "never", "no") for w in body)


#: "What's the deadline?" is "What is the deadline?".
_WH_CONTRACTIONS = frozenset({"what's", "where's", "when's", "who's", "how's", "which's"})
#: Words that open a condition the question keeps ("If I pay in dollars, is there a fee?").
_CONDITIONS = frozenset("if when while whilst after before once since unless".split())
_ASKING = frozenset("who whom what which when where why how whose".split())


#: A dash that closes a premise before a wh-question ("I'm 70 — when can I ...?"); before a
#: yes/no question ("... - are they allowed to do that?") what the question's pronouns point
#: to is the premise, and the question is read whole.
#: Words that link a premise to the question after it ("..., so when ...?").
_CONNECTORS = frozenset({"so", "and", "but", "then"})
_PREMISE_DASH = re.compile(
    rf"\s+[—–-]\s+(?=(?:(?:{'|'.join(sorted(_CONNECTORS))})\s+)?"
    rf"(?:{'|'.join(sorted(_ASKING))})\b)",
    re.IGNORECASE,
)


#: Words that open a clause the asker adds about themselves or their case after the question
#: ("..., I'm 45", "..., the original is with my lawyer", "..., my bus is often late").
_PREMISE_OPENERS = frozenset(
    "i i'm i've im my we we're our he he's she she's they they're his her their the it's".split()
)


def _without_trailing_premise(sentence: str) -> str:
    """``sentence`` without a clause of the asker's own after its question, past a comma
    ("how many can I take in a day, I'm 45": the age is the asker's, not the question's);
    a condition ("..., if I pay in dollars") stays."""
    parts = sentence.split(",")
    for i in range(1, len(parts)):
        words = split_words(parts[i])
        if (
            words
            and [w.lower() for w in words[:2]] not in (["the", "one"], ["the", "ones"])
            and words[0].lower().replace("’", "'") in _PREMISE_OPENERS
            and (
                "'" in words[0].replace("’", "'")  # "I'm", "it's": the verb is in the word
                or has_finite(words[1:] if words[0].lower() in DETERMINERS else words)
            )
            and _asks(split_words(",".join(parts[:i])))
        ):
            return ",".join(parts[:i]).rstrip() + ("?" if sentence.rstrip().endswith("?") else "")
    return sentence


def _asks(words: list[str]) -> bool:
    """Whether ``words`` hold a question of their own (an auxiliary or a wh-word)."""
    return any(
        w.lower().replace("’", "'") in AUX
        or w.lower().replace("’", "'") in NEGATED
        or w.lower() in _ASKING
        or w.lower().replace("’", "'") in _WH_CONTRACTIONS
        for w in words
    )


def _opens_wh(words: list[str]) -> bool:
    """``words`` open with a wh-word, a preposition allowed before it ("until what time")."""
    if words and words[0].lower() in PREPOSITIONS:
        words = words[1:]
    return bool(words) and words[0].lower() in _ASKING


def _asked_clause(sentence: str) -> list[str]:
    """The words of the asking clause of ``sentence``: after a comma, when what follows it
    opens a question (an auxiliary or a wh-word). A premise before it ("My mum is 70, does
    she ...?") is left out; a condition ("If I pay in dollars, is there a fee?") is kept,
    at the end."""
    # an apposition ("the big scan, the one that checks the baby") qualifies its noun
    sentence = re.sub(r",\s+the\s+ones?\s+(?=\w)", " ", sentence, flags=re.IGNORECASE)
    # a dash between a premise and the question is a comma ("I'm 70 — when can I ...?")
    sentence = _PREMISE_DASH.sub(", ", sentence)
    parts = [p for p in sentence.split(",")]
    for i in range(1, len(parts)):
        after = split_words(",".join(parts[i:]))
        before = split_words(",".join(parts[:i]))
        linked = after
        while linked and linked[0].lower() in _CONNECTORS:
            linked = linked[1:]  # "..., so when do I get paid?"
        if _opens_wh(linked):
            after = linked
        if not after or not before:
            continue
        head = after[0].lower().replace("’", "'")
        if head in AUX or head in NEGATED or _opens_wh(after):
            if before[0].lower() in _CONDITIONS:
                return [*after, *[w.lower() if j == 0 else w for j, w in enumerate(before)]]
            return after
    return _unmarked_condition(split_words(sentence))


#: Words a condition without a comma holds before the wh-question it leads to, at least.
_CONDITION_WORDS = 3


def _unmarked_condition(words: list[str]) -> list[str]:
    """A condition typed without its comma before the question ("if i collect it myself how
    long does it take", "if i win does the court refund the fee") moved to the end, as with
    the comma; ``words`` as they are when they open with no condition or no question follows
    it."""
    if len(words) < _CONDITION_WORDS + 2 or words[0].lower() not in _CONDITIONS:
        return words
    if words[1].lower().replace("’", "'") in AUX or words[1].lower() in NEGATED:
        return words  # "when do I pay?": the wh-question itself
    for i in range(_CONDITION_WORDS, len(words) - 1):
        after = words[i:]
        head = after[0].lower().replace("’", "'")
        wh = head in _ASKING and any(w.lower().replace("’", "'") in AUX for w in after[1:4])
        # "... does the court refund it", "... can i": an auxiliary before its subject, not
        # after one ("if i *am* pregnant")
        inverted = (
            (head in AUX or head in NEGATED)
            and words[i - 1].lower() not in PRONOUNS
            and (after[1].lower() in PRONOUNS or after[1].lower() in DETERMINERS)
        )
        if wh or inverted:
            return [*after, words[0].lower(), *words[1:i]]
    return words


#: Relative pronouns that open a clause inside a subject ("the office *that* issues permits").
_RELATIVES = frozenset({"that", "which", "who"})


def finite_verb(word: str, morph: Morphology) -> bool:
    """A finite verb, including a third-person form the lexicon reads as a noun ("issues")."""
    low = word.lower()
    if is_finite(word, morph):
        return True
    return low.endswith("s") and (is_verb(low[:-1], morph) or is_verb(low[:-2], morph))


def opens_relative(words: list[str], i: int, morph: Morphology) -> bool:
    """Whether ``words[i]`` opens a relative clause ("the office *that issues* permits")."""
    return (
        words[i].lower() in _RELATIVES and i + 1 < len(words) and finite_verb(words[i + 1], morph)
    )


def has_relative(words: list[str], morph: Morphology) -> bool:
    """Whether ``words`` hold a relative clause ("the scan *that checks* the baby over")."""
    return any(opens_relative(words, i, morph) for i in range(len(words)))


#: Personal pronouns: a subject of one word.
_PERSONAL = frozenset({"i", "you", "he", "she", "we", "they"})


def subject_end(
    aux: str, rest: list[str], morph: Morphology, *, strict: bool = False
) -> int | None:
    """Where the subject after ``aux`` ends (index into ``rest``); None when no rule says.
    ``strict``: only a predicate word ends it (no guess from a preposition or the length)."""
    if not rest:
        return None
    if aux in BE:
        demonstrative = rest[0].lower() in ("this", "that") and len(rest) > 2
        if rest[0].lower() in PRONOUNS and not (
            demonstrative
            and rest[1].lower() not in PREDICATE_ADJECTIVES | PREPOSITIONS
            and not is_participle(rest[1], morph)
        ):
            return 1
        preposition = None
        relative = False
        for i in range(1, len(rest)):
            low, prev = rest[i].lower(), rest[i - 1].lower()
            if prev in DETERMINERS or prev in PREPOSITIONS or prev == "of":
                continue  # inside a noun phrase ("the results of the scan")
            if opens_relative(rest, i, morph):
                if strict:
                    return None  # "the office that does permits": the subject runs on
                relative = True
                continue
            if relative and prev in _RELATIVES:
                continue
            if low in PREDICATE_ADJECTIVES or is_participle(rest[i], morph):
                return i
            if low in DETERMINERS and low not in ("no", "all", "both", "each", "every"):
                if i >= 2 and rest[i - 2].lower() == "to":
                    continue  # the object of an infinitive ("the deadline to send *my* form")
                return i
            if low in PREPOSITIONS and low != "of" and preposition is None:
                preposition = i
        if strict:
            return None
        if preposition is not None:
            return preposition
        if len(rest) == 2:
            return 1
        return 2 if len(rest) == 3 and rest[0].lower() in DETERMINERS else None
    if rest[0].lower() in _PERSONAL and len(rest) > 1 and is_verb(rest[1], morph):
        return 1  # "I start work": a personal pronoun is the whole subject
    # the subject ends before a condition ("Can I donate blood *if I have* a cold?")
    condition = next((i for i, w in enumerate(rest) if w.lower() in _CONDITIONS), len(rest))
    candidates = [
        i
        for i in range(1, condition)
        if is_verb(rest[i], morph)
        and rest[i - 1].lower() not in DETERMINERS | PREPOSITIONS | {"'s", "of"}
        and not rest[i][:1].isupper()
    ]
    for i in candidates:
        if i + 1 not in candidates or rest[i].lower() in LIGHT_VERBS:
            return i  # the last verb of a run ("the car park closes"), or a light verb
    if rest[0].lower() in PRONOUNS | {"i"}:
        return 1
    # a verb the lexicon does not know: a one-word subject, or a determiner and its noun
    end = 2 if rest[0].lower() in DETERMINERS else 1
    if end < len(rest) and rest[end].islower() and rest[end] not in PREPOSITIONS:
        return end
    return None


def clause(aux_word: str, rest: list[str]) -> tuple[Clause, bool] | None:
    """The declarative clause of ``aux_word rest...`` and whether the question was negated."""
    morph = morphology()
    low = aux_word.lower()
    negated = low in NEGATED or (bool(rest) and rest[0].lower() == "not")
    aux = NEGATED.get(low, low)
    if rest and rest[0].lower() == "not":
        rest = rest[1:]
    if aux not in AUX:
        return None
    end = subject_end(aux, rest, morph)
    if end is None or end >= len(rest):
        return None
    subject = addressed(rest[:end])
    if subject and subject[0] not in ("I",) and subject[0][:1].isupper():
        first = subject[0]
        if first.lower() in DETERMINERS or first.lower() in PRONOUNS:
            subject = (first.lower(), *subject[1:])
    predicate = addressed(rest[end:])
    verb_first = aux not in BE and not (aux in HAVE and not is_verb(predicate[0], morph))
    return Clause(subject, aux, predicate, verb_first), negated


def _possessive(words: list[str] | tuple[str, ...], i: int, morph: Morphology) -> bool:
    """Whether ``words[i]`` ("council's") is a possessive: led by a determiner, or a name's
    last word after its first ("Northline Rail's"), and followed by a noun ("the council's
    team", "Dr Khan's team"), not by a predicate ("the clinic's closed")."""
    low = words[i].lower()
    if not low.endswith("'s") or not i:
        return False
    named = words[i][:1].isupper() and words[i - 1][:1].isupper()
    if words[i - 1].lower() not in DETERMINERS and not named:
        return False
    if i + 1 >= len(words):
        return False
    after = words[i + 1].lower()
    later = words[i + 2].lower() if i + 2 < len(words) else ""
    # "housing" before a noun ("the council's housing team") names the noun's kind
    modifier = after.endswith("ing") and bool(later) and later not in PREPOSITIONS
    return not (
        after in PREDICATE_ADJECTIVES
        or after in PREPOSITIONS
        or after == "not"
        or (is_participle(words[i + 1], morph) and not modifier)
    )


def has_finite(words: list[str] | tuple[str, ...]) -> bool:
    """Whether ``words`` may hold a verb of their own, so they are no bare value: an
    auxiliary, a contraction ("here's"), or a known verb form not led by a determiner, a
    preposition or a number ("the post office" and "every check" are nouns; "am" after a
    number is a time of day)."""
    morph = morphology()
    for i, word in enumerate(words):
        low = word.lower()
        prev = words[i - 1].lower() if i else ""
        if (low == "am" and prev[:1].isdigit()) or (word == "May" and i):
            continue  # "7 am", "3 May"
        if is_finite(word, morph):
            return True
        if re.search(r"'(?:s|re|ve|ll|d)$", low) and not _possessive(words, i, morph):
            return True
        if word[:1].isupper() or not i or prev in DETERMINERS or prev in PREPOSITIONS:
            continue
        if prev[:1].isdigit() or prev in LOWER_FIRST:
            continue
        found = morph.analyze(low)
        if (found is not None and found[1] in ("", "s", "ed")) or low in EXTRA_VERBS:
            return True
    return False
