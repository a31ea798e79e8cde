"""The Table 2 prompt and reading replies: verdicts and listed knowledge."""

from __future__ import annotations

import pytest

from guardrail.probe.prompt import parse_reply, render


def test_prompt_carries_the_question_and_the_papers_instructions():
    text = render("Is it true that warfarin interacts with aspirin")
    assert "the question: Is it true that warfarin interacts with aspirin?, please" in text
    assert "list the knowledge used in your reasoning process" in text
    assert "I don't know" in text


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Yes, it does.", "yes"),
        ("No. Aspirin is safe here.", "no"),
        ("**Yes** - warfarin ...", "yes"),
        ("Correct: both ...", "yes"),
        ("Incorrect. ...", "no"),
        ("I don't know enough about this drug.", "refused"),
        ("I do not know.", "refused"),
        ("I'm not sure.", "refused"),
        ("Answer: Yes. Because ...", "yes"),
        ("**Answer:** no", "no"),
        ("Final answer - I don't know.", "refused"),
        ("Warfarin is an anticoagulant.", None),
        ("", None),
        ("Nothing", None),  # "no" must be a whole word
    ],
)
def test_verdicts(reply: str, verdict: str | None):
    assert parse_reply(reply).verdict == verdict


def test_knowledge_points_are_the_numbered_or_bulleted_lines():
    reply = parse_reply(
        "Yes, they interact.\nThe key knowledge points are:\n"
        "1. Warfarin is an anticoagulant.\n2) Aspirin inhibits platelets.\n- Both thin blood.\n"
        "Hence the risk of bleeding."
    )
    assert reply.knowledge == [
        "Warfarin is an anticoagulant.",
        "Aspirin inhibits platelets.",
        "Both thin blood.",
    ]


def test_a_statement_to_judge_keeps_its_full_stop():
    statement = "A does not treat b. Please judge the truthfulness of this statement."
    assert f"the question: {statement}, please" in render(statement)


QUESTION = "Is it true that ibuprofen is contraindicated in the third trimester of pregnancy?"


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ('The answer to the question "Is it true that ibuprofen is not contraindicated in '
         'pregnancy?" is: No, it\'s not.', "no"),
        ("Based on the provided information, the answer is:\nYes.", "yes"),
        ("Based on what I know, my answer would be - **no**.", "no"),
        ("Answer:\n\nYes, it is.", "yes"),
        (f'"{QUESTION}"\nYes. NSAIDs must be avoided late in pregnancy.', "yes"),
        (f"{QUESTION} No.", "no"),
        ("Ibuprofen is an NSAID. The statement is false.", "no"),
        ('The statement "ibuprofen does not belong to the NSAID class" is false.\nIt is.', "no"),
        ("The answer is: I don't know.", "refused"),
        ("I don't have enough information to answer this.", "refused"),
        ("Ibuprofen is a painkiller. The answer is not obvious.", None),
        ("The answer depends on the dose.", None),
    ],
)  # fmt: skip
def test_verdicts_after_the_usual_lead_ins(reply: str, verdict: str | None):
    assert parse_reply(reply, QUESTION).verdict == verdict


def test_a_reply_that_only_parrots_the_prompts_example_is_unparsed():
    example = (
        "Supposed Response: Yes, during Barack Obama's presidency from 2009 to 2017, one film "
        "directed by James Cameron was released - Avatar in 2009.\n"
        "The key knowledge points used in this reasoning process are:\n"
        "1. Barack Obama was the US President from January 20, 2009 to January 20, 2017.\n"
        "2. James Cameron is a famous film director known for movies like Titanic, Avatar, "
        "Terminator 2, etc."
    )
    parrot = parse_reply(example, QUESTION)
    assert parrot.verdict is None and parrot.knowledge == []
    assert parrot.note == "the reply only repeats the prompt's own text"
    # the bare example answer, without its label, is a parrot too
    bare = "Yes, during Barack Obama's presidency from 2009 to 2017, one film directed by James"
    assert parse_reply(bare + " Cameron was released.", QUESTION).verdict is None
    # an echoed prompt followed by a real answer keeps the answer
    echoed = parse_reply(example + "\nNo.\n1. Ibuprofen is safe.", QUESTION)
    assert echoed.verdict == "no" and echoed.knowledge == ["Ibuprofen is safe."]
    # a real answer that repeats the question's own words is not an echo
    own = parse_reply(
        "Yes, ibuprofen is contraindicated in the third trimester of pregnancy.", QUESTION
    )
    assert own.verdict == "yes" and own.note == ""


def test_knowledge_points_follow_the_verdicts_line():
    reply = parse_reply(
        "Let me think.\nBased on the information, the answer is: No.\n1. Ibuprofen is an NSAID.\n"
        "2. NSAIDs are contraindicated late in pregnancy.",
        QUESTION,
    )
    assert reply.verdict == "no"
    assert reply.knowledge == [
        "Ibuprofen is an NSAID.",
        "NSAIDs are contraindicated late in pregnancy.",
    ]
