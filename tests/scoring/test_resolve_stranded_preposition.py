"""A preposition the question leaves at its end ("... in by?", "... send it to?") and the
reply repeats ("By 17 March.", "To the payroll team.") is said once in the statement."""

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
