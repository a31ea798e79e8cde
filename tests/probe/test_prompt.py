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
