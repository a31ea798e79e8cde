"""Question forms a short reply leans on: tag questions, "what is X called", appositions
and relative clauses, "need to" complements, bounds led by "no", hedged noes, a sentence
after a dash, a period the reply gives itself."""

from __future__ import annotations

import pytest

from guardrail.scoring.resolve import resolve


def statements(question: str, answer: str) -> list[str]:
    return [s.text for s in resolve(question, answer).statements]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # a tag asks about the positive statement: yes affirms it, no denies it
        (
            "Patients don't pay for prescriptions, do they?",
            "No.",
            ["Patients do not pay for prescriptions."],
        ),
        (
            "There's no fee for the first visit, is there?",
            "No.",
            ["There is not a fee for the first visit."],
        ),
        ("The clinic opens at 8, doesn't it?", "Yes.", ["The clinic opens at 8."]),
        ("I can bring my partner, can't I?", "Yes, you can.", ["You can bring your partner."]),
        # "right" agrees with what was said, a negative included
        (
            "I shouldn't take this with milk, right?",
            "Correct.",
            ["You should not take this with milk."],
        ),
        ("I can take this with milk, right?", "Right.", ["You can take this with milk."]),
        # a correction of the question's value
        (
            "The clinic opens at 8, right?",
            "No, at 9.",
            ["The clinic opens at 9."],
        ),
    ],
)
def test_tag_questions(question: str, answer: str, expected: list[str]) -> None:
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("what's the helpline called?", "NHS 111.", "The helpline is called NHS 111."),
        (
            "what's the form called for bringing my wife over?",
            "Form FR-2.",
            "The form for bringing your wife over is called Form FR-2.",
        ),
        (
            "when's the big scan, the one that checks the baby over?",
            "At 20 weeks.",
            "The big scan that checks the baby over is at 20 weeks.",
        ),
        (
            "what's the leaflet called for the pension?",
            "Form P-45.",
            "The leaflet for the pension is called Form P-45.",
        ),
        (
            "when's the scan, the one at the start?",
            "At 12 weeks.",
            "The scan at the start is at 12 weeks.",
        ),
        (
            "where is the office that issues permits?",
            "Room 4.",
            "The office that issues permits is in Room 4.",
        ),
        ("Is that clinic open on Saturday?", "No.", "That clinic is not open on Saturday."),
        (
            "what time do the recycling boxes need to be out?",
            "By half past six.",
            "The recycling boxes need to be out by half past six.",
        ),
        ("what do I need to bring?", "My passport.", "You need to bring your passport."),
        (
            "when will my refund arrive?",
            "Next working day.",
            "Your refund will arrive next working day.",
        ),
        (
            "how many paracetamol can I take in a day?",
            "Eight at most in 24 hours.",
            "You can take eight at most in 24 hours.",
        ),
        (
            "how many paracetamol can I take in a day?",
            "No more than eight.",
            "You can take no more than eight paracetamol in a day.",
        ),
        ("when can visitors come?", "From 8 am - 10 pm.", "Visitors can come from 8 am to 10 pm."),
        (
            "Am I allowed to work while I am waiting?",
            "Yes.",
            "You are allowed to work while you are waiting.",
        ),
    ],
)
def test_the_reply_lands_in_its_place(question: str, answer: str, expected: str) -> None:
    assert statements(question, answer) == [expected]


def test_an_echo_with_its_own_to_clause_is_a_statement_of_its_own() -> None:
    assert statements("Do I need a visa for a short visit?", "Yes, you have to apply first.") == [
        "You need a visa for a short visit.",
        "You have to apply first.",
    ]


def test_a_hedged_no_is_a_no() -> None:
    assert statements("Can I park here overnight?", "Usually not.") == [
        "You cannot park here overnight."
    ]


def test_a_sentence_after_a_dash_is_read_as_written() -> None:
    assert statements("Can I bring my bike on the bus?", "Yep, for free - just fold it.") == [
        "You can bring your bike on the bus for free.",
        "Just fold it.",
    ]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Who do I speak to about a safeguarding worry?",
            "Take it to Mrs Patel.",
            ["You speak to Mrs Patel about a safeguarding worry."],
        ),
        ("Where do I hand in the form?", "Take it to Desk 4.", ["You hand in the form in Desk 4."]),
        ("Who should I call?", "Call the night nurse.", []),
    ],
)
def test_an_instruction_points_to_its_value(
    question: str, answer: str, expected: list[str]
) -> None:
    assert statements(question, answer) == expected


def test_a_sentence_with_a_shorter_subject_and_no_yes_or_no() -> None:
    question = "Does the legal advice clinic charge?"
    assert statements(question, "The clinic does not charge.") == [
        "The legal advice clinic does not charge."
    ]
    assert statements("Does the clinic open on Sundays?", "The pharmacy does.") == []


def test_a_no_denies_the_obligation_asked_about_not_a_prohibition() -> None:
    assert statements("Does the employer have to pay?", "No, the employee must.") == [
        "The employer does not have to pay.",
        "The employee must pay.",
    ]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # what the asker says before a dash or a ", so" is a premise, not the question
        (
            "My son is 15 — when can he get a passport on his own?",
            "At 16.",
            ["He can get a passport on his own at 16."],
        ),
        (
            "The 1st is a Sunday, so when does the rent go out?",
            "On Monday the 2nd.",
            ["The rent goes out on Monday the 2nd."],
        ),
        # "where in the building": the place asked for is narrowed, the gap is the same
        (
            "Where in the building do I drop off my sample?",
            "At the lab hatch.",
            ["You drop off your sample at the lab hatch."],
        ),
        # a possessive in the reply's name is no verb
        (
            "Who do I send the complaint to?",
            "The council's housing team.",
            ["You send the complaint to the council's housing team."],
        ),
        # "at the latest" is part of the value, not a verb
        (
            "By when do I have to hand in the form?",
            "By 3 May at the latest.",
            ["You have to hand in the form by 3 May at the latest."],
        ),
    ],
)
def test_a_question_with_a_premise_or_a_narrowing_still_places_its_reply(
    question: str, answer: str, expected: list[str]
) -> None:
    assert statements(question, answer) == expected
