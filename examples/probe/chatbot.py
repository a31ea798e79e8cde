"""An example chatbot to probe: an offline, deterministic FAQ bot with a few wrong facts.

    guardrail probe examples/probe/healthcare.yaml --chatbot examples.probe.chatbot:answer

It stands in for your own answer function (the kind ``Guard.wrap`` takes: question in,
``(answer, contexts)`` out). It knows a list of statements, some of them wrong on purpose
(marked below), matches the question's two entities against them and answers yes or no; it
cannot chain facts, and when it knows an entity but no statement links the two it answers
"no" with confidence, the way a chatbot without the reasoning step often does. It knows
nothing of guardrail.
"""

from __future__ import annotations

import re

# (subject, words, object): what the bot believes, as it would say it.
STATEMENTS = [
    ("ibuprofen", "belongs to", "the NSAID class"),
    ("naproxen", "belongs to", "the NSAID class"),
    ("diclofenac", "belongs to", "the NSAID class"),
    ("the NSAID class", "belongs to", "the painkiller class"),
    ("paracetamol", "belongs to", "the painkiller class"),
    ("codeine", "belongs to", "the opioid class"),
    ("lisinopril", "belongs to", "the ACE inhibitor class"),
    # WRONG on purpose: ibuprofen must not be used in the third trimester
    ("ibuprofen", "is not contraindicated in", "the third trimester of pregnancy"),
    ("naproxen", "is contraindicated in", "the third trimester of pregnancy"),
    ("diclofenac", "is contraindicated in", "the third trimester of pregnancy"),
    ("warfarin", "is contraindicated in", "pregnancy"),
    ("isotretinoin", "is contraindicated in", "pregnancy"),
    ("methotrexate", "is contraindicated in", "pregnancy"),
    # WRONG on purpose: lisinopril (an ACE inhibitor) is contraindicated in pregnancy
    ("lisinopril", "is not contraindicated in", "pregnancy"),
    ("paracetamol", "is recommended for", "pain relief during pregnancy"),
    ("folic acid", "is recommended for", "women planning a pregnancy"),
    ("warfarin", "interacts with", "aspirin"),
    ("warfarin", "interacts with", "ibuprofen"),
    ("ibuprofen and naproxen", "share similar", "side effects"),
    ("naproxen and diclofenac", "share similar", "side effects"),
    ("asylum seekers waiting six months for a first decision", "are eligible for", "a work permit"),
    ("students holding a student visa", "are eligible for", "part-time work of up to 20 hours"),
    ("city residents", "are eligible for", "a free library card"),
    # WRONG on purpose, an invented fact: in country X free prescriptions are only for the
    # groups listed in the fact file, whose eligibility list is complete
    ("city residents", "are eligible for", "free prescriptions"),
    ("pregnant women", "are eligible for", "free prescriptions"),
    ("children under 16", "are eligible for", "free prescriptions"),
    # WRONG on purpose: people aged 60 and over do get free prescriptions in country X
    ("people aged 60 and over", "are not eligible for", "free prescriptions"),
    ("pregnant women", "are eligible for", "free dental care"),
    ("new mothers", "are eligible for", "free dental care"),
    ("pregnant women", "are eligible for", "a maternity allowance"),
]
_NEGATIVE = re.compile(r"\b(not|never|impossible|totally different)\b|n't\b", re.IGNORECASE)
_QUESTION = re.compile(r"given the question: (?P<q>.+?), please provide", re.DOTALL)


def _entities(subject: str) -> list[str]:
    return [part.strip() for part in subject.split(" and ")] if " and " in subject else [subject]


def _mentions(question: str, entity: str) -> int:
    """Where ``entity`` occurs in ``question`` as whole words (-1: it does not)."""
    match = re.search(rf"\b{re.escape(entity.lower())}\b", question)
    return match.start() if match else -1


def _sentence(subject: str, words: str, obj: str) -> str:
    text = f"{subject} {words} {obj}."
    return text[0].upper() + text[1:]


def answer(question: str) -> tuple[str, list[str]]:
    """Answer a yes/no question (the probe sends the HalluVault prompt around it)."""
    match = _QUESTION.search(question)
    asked = (match["q"] if match else question).lower()
    best = None
    for subject, words, obj in STATEMENTS:
        names = [*_entities(subject), obj] if words != "share similar" else _entities(subject)
        if all(_mentions(asked, n) >= 0 for n in names):
            size = sum(len(n) for n in names)
            if best is None or size > best[0]:
                best = (size, subject, words, obj)
    if best is None:
        known = [s for s in STATEMENTS if _mentions(asked, _entities(s[0])[0]) >= 0]
        if not known:
            return "I don't know.\nI have no information about this.", []
        points = [_sentence(*s) for s in known[:3]]
        reply = "No, nothing I know says so.\nKnowledge used:\n"
        return reply + "\n".join(f"{n}. {p}" for n, p in enumerate(points, 1)), points
    _, subject, words, obj = best
    believes = not _NEGATIVE.search(words)
    question_says = not _NEGATIVE.search(asked)
    verdict = "Yes" if believes == question_says else "No"
    point = _sentence(subject, words, obj)
    return f"{verdict}.\nKnowledge used:\n1. {point}", [point]
