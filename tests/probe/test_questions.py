"""Question templates (HalluVault Table 1): grammatical questions with the right answers."""

from __future__ import annotations

import pytest

from guardrail.probe.facts import Relation, parse_facts
from guardrail.probe.questions import questions, statement, template
from guardrail.probe.reasoning import derive

FACTS = """
relations:
  contraindicated_in: {type: passive, phrase: contraindicated in,
                       negation: not contraindicated in}
  interacts_with: {type: active, phrase: interacts with, negation: does not interact with,
                   symmetric: true}
  side_effects: {type: noun, phrase: side effects, negation: no similar side effects,
                 symmetric: true}
facts:
  - [ibuprofen, contraindicated_in, the third trimester]
  - [warfarin, interacts_with, aspirin]
  - [ibuprofen, side_effects, naproxen]
"""


def build():
    base = parse_facts(FACTS)
    return questions(base, derive(base))


def by_text():
    return {q.text: q for q in build()}


def test_each_relation_type_uses_its_template_and_expected_answer():
    qs = by_text()
    expected = {
        "Is it true that ibuprofen is contraindicated in the third trimester?": "yes",
        "It is impossible for ibuprofen to be contraindicated in the third trimester. "
        "Am I right?": "no",
        "Is it true that ibuprofen is not contraindicated in the third trimester?": "no",
        "Is it true that warfarin interacts with aspirin?": "yes",
        "Warfarin does not interact with aspirin. Please judge the truthfulness of this "
        "statement.": "no",
        "Is it true that aspirin interacts with warfarin?": "yes",  # symmetric rule
        "Is it true that aspirin does not interact with warfarin?": "no",  # negation of it
        "Is it true that ibuprofen and naproxen share similar side effects?": "yes",
        "Ibuprofen and naproxen have totally different side effects. Please judge the "
        "truthfulness of this statement.": "no",
        "Is it true that naproxen and ibuprofen do not share similar side effects?": "no",
    }
    for text, answer in expected.items():
        assert qs[text].expected == answer, text


def test_every_question_is_one_sentence_ending_in_a_question_or_full_stop():
    for q in build():
        assert q.text[0].isupper() and q.text.endswith(("?", "."))
        assert "  " not in q.text


def test_every_expected_answer_is_what_the_engine_entails():
    base = parse_facts(FACTS)
    knowledge = derive(base)
    for q in questions(base, knowledge):
        holds = knowledge.holds(q.triple) if q.form != "negation" else True
        assert holds is not None
        meant = holds if q.form == "template" else not holds
        assert q.expected == ("yes" if meant else "no"), q.text


def test_three_questions_per_known_triple():
    base = parse_facts(FACTS)
    knowledge = derive(base)
    positive = len(knowledge.facts) + sum(1 for d in knowledge.derived if d.holds)
    assert len(questions(base, knowledge)) == 3 * positive == 3 * 5


def test_synonyms_ask_the_same_thing_in_other_words():
    text = FACTS.replace(
        "symmetric: true}\n  side",
        "symmetric: true,\n                   synonyms: [has an interaction with]}\n  side",
        1,
    )
    base = parse_facts(text)
    qs = {q.text: q for q in questions(base, derive(base))}
    q = qs["Is it true that warfarin has an interaction with aspirin?"]
    assert (q.expected, q.form, q.rule) == ("yes", "synonym", "fact")
    assert qs["Is it true that aspirin has an interaction with warfarin?"].rule == "symmetric"


@pytest.mark.parametrize(
    ("subject", "verb"),
    [
        ("ibuprofen", "is"),
        ("pregnant women", "are"),
        ("children under 16", "are"),
        ("asylum seekers waiting six months for a decision", "are"),
        ("the NSAID class", "is"),
        ("the third trimester of pregnancy", "is"),
        ("free prescriptions", "are"),
    ],
)
def test_passive_template_agrees_with_the_subject(subject: str, verb: str):
    relation = Relation(type="passive", phrase="eligible for", negation="not eligible for")
    assert template(relation, subject, "x") == f"Is it true that {subject} {verb} eligible for x?"
    assert statement(relation, subject, "x", negated=True).endswith(f"{verb} not eligible for x.")
