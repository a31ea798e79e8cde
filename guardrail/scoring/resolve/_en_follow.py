"""English follow-up sentences: a pronoun that points back into the question.

After a bare reply ("Yes.", "At the front desk.") the answer has no noun phrase of its own,
so the subject pronoun of the next sentence names something the *question* introduced:

    "Do I have to report a change of address?"
    "Yes. It must be done within two weeks."  ->  "A change of address must be done within
    two weeks."

Only "it" and "they" are read this way ("this" and "that" mostly stand for the claim). The
pronoun is replaced by the question's subject when it agrees in number and is not a
person ("I", "you"), else by the first noun phrase of the question's predicate. Nothing else
in the sentence changes; a sentence that does not open with such a pronoun and a verb is left
as written.
"""

from __future__ import annotations

from guardrail.scoring.resolve._en_grammar import (
    AUX,
    BE,
    DETERMINERS,
    NEGATED,
    PREPOSITIONS,
    Made,
    addressed,
    clause,
    is_finite,
    is_verb,
    morphology,
    question_sentence,
    sentence,
    split_words,
    subject_end,
)
from guardrail.scoring.resolve._en_wh import wh_question

#: Subject pronouns a follow-up sentence may open with, and whether each is plural.
FOLLOW_PRONOUNS = {"it": False, "they": True}
#: Longest follow-up sentence (in words) read this way.
MAX_FOLLOW_WORDS = 20
#: Subjects that are people, never the thing "it" or "they" stands for.
_PEOPLE = frozenset({"i", "you", "we", "he", "she", "they", "it", "there", "this", "that"})
#: Words that end a noun phrase taken from the question's predicate.
_PHRASE_END = PREPOSITIONS - {"of"}

#: Adverbs that may stand between the pronoun and its verb ("It also covers ...").
_ADVERBS = frozenset("also only still usually always never often sometimes just".split())
#: Plural nouns without a plural "-s".
_PLURALS = frozenset("women men children people staff police personnel".split())

#: Words after the verb that make the pronoun stand for the claim itself ("It is true.",
#: "It is because ...", "It depends").
_ABOUT_THE_CLAIM = frozenset("true correct right wrong so why because the case".split())

RULE = "follow-up pronoun"


def resolve_follow(question: str, reply_text: str) -> list[Made]:
    """``reply_text`` with its opening pronoun replaced by the question's noun phrase it
    stands for; [] when it does not open with one or no phrase agrees."""
    words = split_words(reply_text)
    if len(words) < 3 or len(words) > MAX_FOLLOW_WORDS:
        return []
    pronoun = words[0].lower()
    verb = 2 if words[1].lower() in _ADVERBS else 1
    if pronoun not in FOLLOW_PRONOUNS or not _finite_after(pronoun, words[verb]):
        return []
    if len(words) > verb + 1 and words[verb + 1].lower() in _ABOUT_THE_CLAIM:
        return []  # "It is true." speaks of the reply, not of a thing the question named
    phrase = antecedent(question, plural=FOLLOW_PRONOUNS[pronoun])
    if not phrase:
        return []
    return [(sentence([*phrase, *words[1:]]), RULE)]


def _finite_after(pronoun: str, word: str) -> bool:
    """Whether ``word`` is the finite verb after ``pronoun``: a form the lexicon knows, or,
    after "it", any "-s" form ("it *kicks* in") — a noun cannot follow a subject "it"."""
    if is_finite(word, morphology()):
        return True
    low = word.lower()
    return pronoun == "it" and low.isalpha() and low.endswith("s") and not low.endswith("ss")


#: Object pronouns an instruction may point back with ("Take *it* with food."), and their number.
OBJECT_PRONOUNS = {"it": False, "them": True}


def resolve_instruction(question: str, reply_text: str) -> list[Made]:
    """An instruction ("Take it with food.") with its object pronoun, right after the verb,
    replaced by the question's noun phrase; [] when it has none or no phrase agrees."""
    words = split_words(reply_text)
    morph = morphology()
    if len(words) < 2 or not is_verb(words[0], morph) or is_finite(words[0], morph):
        return []
    pronoun = words[1].lower()
    if pronoun not in OBJECT_PRONOUNS:
        return []
    phrase = antecedent(question, plural=OBJECT_PRONOUNS[pronoun])
    if not phrase:
        return []
    return [(sentence([words[0], *_lowered(phrase), *words[2:]]), "instruction pronoun")]


def named(question: str, text: str) -> str:
    """``text`` (one sentence) with a pronoun that points back into the question named."""
    found = resolve_follow(question, text) or resolve_instruction(question, text)
    return found[0][0] if found else text


def _lowered(phrase: tuple[str, ...]) -> tuple[str, ...]:
    first = phrase[0]
    return (first.lower(), *phrase[1:]) if first.lower() in DETERMINERS else phrase


def antecedent(question: str, *, plural: bool) -> tuple[str, ...]:
    """The question's noun phrase a follow-up pronoun of that number stands for."""
    asked = question_sentence(question)
    if not asked:
        return ()
    first = asked[0].lower()
    if first in AUX or first in NEGATED:
        found = clause(asked[0], asked[1:])
    else:
        subject = _wh_subject(asked)
        return subject if _fits(subject, plural) else ()
    if found is None:
        return ()
    made = found[0]
    if _fits(made.subject, plural):
        return made.subject
    phrase = _object(made.predicate)
    return phrase if _fits(phrase, plural) else ()


def _wh_subject(asked: list[str]) -> tuple[str, ...]:
    """The subject of a wh-question ("Where is *the fire extinguisher*?")."""
    q = wh_question(asked)
    rest = list(q.rest) if q is not None else []
    if len(rest) < 2 or rest[0].lower() not in AUX:
        return ()
    aux, after = rest[0].lower(), rest[1:]
    end = subject_end(aux, after, morphology(), strict=aux in BE)
    if end is None and aux in BE:
        end = len(after)
    return addressed(after[:end]) if end else ()


def _fits(phrase: tuple[str, ...], plural: bool) -> bool:
    """A thing's noun phrase whose number agrees with the pronoun's."""
    if not phrase or phrase[0].lower() in _PEOPLE or phrase[-1].lower() in _PEOPLE:
        return False
    head = _head(phrase).lower()
    looks_plural = head in _PLURALS or (
        head.endswith("s") and not head.endswith(("ss", "us", "is"))
    )
    return looks_plural == plural


def _head(phrase: tuple[str, ...]) -> str:
    """The phrase's head noun: the last word before an "of" complement."""
    lowered = [w.lower() for w in phrase]
    return phrase[lowered.index("of") - 1] if "of" in lowered[1:] else phrase[-1]


def _object(predicate: tuple[str, ...]) -> tuple[str, ...]:
    """The first determiner-led noun phrase of a predicate ("a change of address")."""
    for i, word in enumerate(predicate):
        if word.lower() in DETERMINERS:
            out = [word]
            for nxt in predicate[i + 1 :]:
                if nxt.lower() in _PHRASE_END or nxt.lower() in AUX:
                    break
                out.append(nxt)
            return tuple(out) if len(out) > 1 else ()
    return ()
