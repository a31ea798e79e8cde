"""A duration said with an article is one of its unit ("within *a week*", "*an hour* before
a meal", "*half an hour*", "*a fortnight*"): a value like "7 days" or "60 minutes", so it is
compared with the passage's; "twice *a week*" and "€5 *a month*" are rates, not durations."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("text", "key", "amount"),
    [
        ("You can cancel within a week.", "minutes", 7 * 1440.0),
        ("Take it an hour before a meal.", "minutes", 60.0),
        ("Wait half an hour before breakfast.", "minutes", 30.0),
        ("Reply within a fortnight.", "minutes", 14 * 1440.0),
        ("The permit lasts a year.", "months", 12.0),
        ("Employees must give one month's notice.", "months", 1.0),
        ("Give a week's notice.", "minutes", 7 * 1440.0),
        ("Two weeks' notice is needed.", "minutes", 14 * 1440.0),
    ],
)
def test_an_article_and_a_unit_are_one_of_the_unit(text: str, key: str, amount: float) -> None:
    found = [(v.key, v.amount) for v in extract(text) if v.kind == "quantity"]
    assert found == [(key, amount)]


@pytest.mark.parametrize(
    "text", ["Use it twice a week.", "It costs €5 a month.", "Take two tablets three times a day."]
)
def test_a_rate_is_no_duration(text: str) -> None:
    assert not [v for v in extract(text) if v.kind == "quantity" and v.key in ("minutes", "months")]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong"),
    [
        (
            "You can cancel within 14 days of receiving the goods.",
            "You can cancel within a fortnight of receiving the goods.",
            "You can cancel within a week of receiving the goods.",
        ),
        (
            "Take levothyroxine 30 minutes before breakfast.",
            "Take levothyroxine half an hour before breakfast.",
            "Take levothyroxine an hour before breakfast.",
        ),
    ],
)
def test_a_duration_with_an_article_is_compared(context: str, faithful: str, wrong: str) -> None:
    kept, caught = verified("en", [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is Support.CONTRADICTED, wrong


def test_a_daily_dose_is_no_duration() -> None:
    """ "one tablet a day for 5 days" has one duration, five days."""
    found = [v.amount for v in extract("Take one tablet a day for 5 days.") if v.key == "minutes"]
    assert found == [5 * 1440.0]
    (outcome,) = verified(
        "en", ["Take one tablet a day for 5 days."], "Take one tablet daily for 5 days."
    )
    assert outcome is not Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "text"),
    [("pt", "A semana de trabalho tem 40 horas."), ("es", "Llame a urgencias a la hora de cenar.")],
)
def test_an_article_reads_durations_in_english_only(language: str, text: str) -> None:
    """ "a" is a preposition or the article "the" in Spanish and Portuguese: "A semana" is no
    week-long duration."""
    from guardrail.lang.context import reading

    with reading(language):
        found = [v.surface for v in extract(text) if v.key == "minutes"]
    assert not [f for f in found if not f[:1].isdigit()], found
