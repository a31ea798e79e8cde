"""Short replies that give a time of day in words: "At one o'clock." agrees with "9am to 1pm"
(the hour's word is part of the time, not a word the passage must hold), "Half past
midnight." is 00:30 and "quarter to midnight" 23:45."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.times import clock_minutes
from guardrail.scoring import MetaRAG

#: (question, context, faithful reply, reply with the passage's other time)
CLOCK = [
    (
        "what time does greenway pharmacy close on saturdays",
        "Greenway Pharmacy closes at 7pm on weekdays and at 2pm on Saturdays.",
        "At two o'clock.",
        "At seven o'clock.",
    ),
    (
        "when is the last tram on saturdays",
        "The last tram leaves the city centre at 23:40 on weekdays and at 00:30 on Saturdays.",
        "Half past midnight.",
        "Twenty to midnight.",
    ),
]


@pytest.mark.parametrize(("question", "context", "faithful", "wrong"), CLOCK)
def test_a_time_in_words(question: str, context: str, faithful: str, wrong: str) -> None:
    judge = MetaRAG(LocalJudge())
    assert judge.score_sync(question, faithful, [context]).score < 0.3
    assert judge.score_sync(question, wrong, [context]).score >= 0.5


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("half past midnight", {30}),
        ("quarter past midnight", {15}),
        ("quarter to midnight", {23 * 60 + 45}),
        ("half past noon", {12 * 60 + 30}),
        ("at midnight", {0}),
    ],
)
def test_times_near_midnight_and_noon(text: str, minutes: set[int]) -> None:
    assert clock_minutes(text) == minutes
