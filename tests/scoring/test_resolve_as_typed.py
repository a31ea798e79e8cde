"""Questions as people type them. A preposition the question leaves at its end ("... in by?",
"... send it to?") and the reply repeats ("By 17 March.", "To the payroll team.") is said once
in the statement; a question word typed in a hurry ("wot", "wich", "whos") is read as itself."""

from __future__ import annotations

import pytest

from guardrail.scoring.resolve import resolve


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        (
            "When does my claim form have to be in by?",
            "By 9 October 2027.",
            "Your claim form has to be in by 9 October 2027.",
        ),
        ("what date do i have to move out by", "By 1 June.", "You have to move out by 1 June."),
        (
            "Who should I send my fit note to?",
            "To the HR team.",
            "You should send your fit note to the HR team.",
        ),
    ],
)
def test_a_stranded_preposition_is_said_once(question: str, answer: str, statement: str) -> None:
    assert [s.text for s in resolve(question, answer).statements] == [statement]


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        (
            "wot time does the dental clinic open on a friday",
            "Half nine.",
            "The dental clinic opens at half nine on a friday.",
        ),
        ("wich bus goes to the eye hospital", "The 42.", "The 42 goes to the eye hospital."),
        ("whos my caseworker", "Mr Adeyemi.", "Mr Adeyemi is your caseworker."),
    ],
)
def test_a_question_word_typed_in_a_hurry(question: str, answer: str, statement: str) -> None:
    """ "wot", "wen", "whos" open a question as "what", "when", "who's" do."""
    assert [s.text for s in resolve(question, answer).statements] == [statement]
