"""A rate said with "in": "eight hours *in a day*" is eight hours per day, as "8 hours a day"
is, not a duration of one day that conflicts with the eight hours; so is "*in a week* you can
work at most 48 hours" and Italian "*in un anno* ... 250 ore". "In a week" with no other
amount of time stays a time ("you will hear back in a week")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import assert_told_apart, verified

#: (context with a rate, the rate said with "in", the same rate with another amount)
RATES = [
    (
        "Trainee drivers must not drive more than 6 hours a day.",
        "Trainee drivers must not drive more than six hours in a day.",
        "Trainee drivers can drive 9 hours in a day.",
    ),
    (
        "Night staff can be asked to work up to 12 hours a shift and 36 hours a week.",
        "Night staff can be asked to work up to 36 hours in a week.",
        "Night staff can be asked to work up to 48 hours in a week.",
    ),
]


#: (language, context with a rate, the rate with its period first, another amount)
PERIOD_FIRST = [
    (
        "en",
        "Agency nurses cannot work more than 50 hours a week.",
        "In a week, agency nurses can work at most 50 hours.",
        "In a week, agency nurses can work up to 70 hours.",
    ),
    (
        "it",
        "Le ore di permesso retribuito non possono superare le 32 ore annue.",
        "In un anno si possono prendere al massimo 32 ore di permesso retribuito.",
        "In un anno si possono prendere fino a 60 ore di permesso retribuito.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "other"), PERIOD_FIRST)
def test_a_rate_with_its_period_first(language: str, context: str, same: str, other: str) -> None:
    assert_told_apart(language, context, same, other)


@pytest.mark.parametrize(("context", "same", "other"), RATES)
def test_a_rate_with_in(context: str, same: str, other: str) -> None:
    assert_told_apart("en", context, same, other)


def test_in_a_week_after_a_noun_is_still_a_time() -> None:
    """ "You will get the result in a week": a week (7 days) is read as a time; "eight hours in
    a day" gives the eight hours and no day."""
    with reading("en"):
        week = extract("You will get the test result in a week.")
        rate = extract("You cannot work more than eight hours in a day.")
    assert [(v.key, v.amount) for v in week] == [("minutes", 7 * 24 * 60)]
    assert [(v.key, v.amount) for v in rate] == [("minutes", 8 * 60)]


def test_a_rate_a_day_against_a_limit_in_24_hours() -> None:
    """ "more than 8 a day" against "Do not take more than 8 tablets in 24 hours": "a day" is the
    rate's period, which the passage gives as 24 hours, so the bound the other way is read and
    contradicts; "up to 8 a day" agrees."""
    context = "Do not take more than 8 tablets in 24 hours."
    above, within = verified(
        "en", ["You can take more than 8 a day.", "You can take up to 8 a day."], context
    )
    assert above is Support.CONTRADICTED
    assert within is not Support.CONTRADICTED
