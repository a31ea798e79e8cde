"""A negated verb with a duration after "for" ("must not drive for at least four hours")
states how long the ban lasts: the negation does not turn "at least" into "at most", so the
same wait said with the negation nearer or farther from it is the same value."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    "text",
    [
        "Patients must not drive for at least four hours.",
        "You cannot drive after the eye examination for at least four hours.",
        "Do not drink alcohol for at least 48 hours after the last dose.",
    ],
)
def test_a_ban_for_at_least_a_duration_keeps_its_lower_bound(text: str) -> None:
    (value,) = [v for v in extract(text) if v.kind == "quantity"]
    assert value.bound == -1, text


def test_a_ban_on_more_than_an_amount_still_turns_around() -> None:
    (value,) = [v for v in extract("Do not take more than eight tablets.") if v.kind == "quantity"]
    assert value.bound == 1


@pytest.mark.parametrize(
    ("context", "faithful", "wrong"),
    [
        (
            "After the eye drops used in the examination, patients must not drive for at least "
            "four hours because their vision may be blurred.",
            "You cannot drive after the eye examination for at least four hours.",
            "You cannot drive after the eye examination for at least two hours.",
        ),
        (
            "Do not lift anything heavy for at least six weeks after the operation.",
            "You should not lift heavy things for at least six weeks after the operation.",
            "You should not lift heavy things for at least three weeks after the operation.",
        ),
    ],
)
def test_the_same_wait_is_not_a_conflict(context: str, faithful: str, wrong: str) -> None:
    kept, caught = verified("en", [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is not Support.SUPPORTED, wrong


def test_a_ban_on_driving_for_more_than_a_duration_still_turns_around() -> None:
    """ "Do not drive for more than four hours" allows up to four hours: at most."""
    (value,) = [
        v for v in extract("Do not drive for more than four hours.") if v.kind == "quantity"
    ]
    assert value.bound == 1


@pytest.mark.parametrize(
    ("context", "statement"),
    [
        (
            "Refugees may apply for a travel loan only once they have lived here for more "
            "than 6 months.",
            "Refugees may apply for a travel loan straight away.",
        ),
        (
            "Agency workers get the same holiday rights after 12 weeks in the same job.",
            "Agency workers get the same holiday rights immediately.",
        ),
        (
            "Members can withdraw their savings immediately.",
            "Members can withdraw their savings after 30 days.",
        ),
    ],
)
def test_immediately_against_a_wait_given_as_a_length_of_time(context: str, statement: str) -> None:
    """A wait given as a length of time after "after" or a lower bound ("more than 6 months")
    is a wait as much as the word "wait": "straight away" against it is contradicted, and so
    is a wait against "immediately"."""
    assert verified("en", [statement], context) == [Support.CONTRADICTED]


def test_a_deadline_is_no_wait() -> None:
    """An upper bound ("within 14 days") is a deadline: acting at once keeps to it."""
    context = "You must report the change within 14 days."
    (outcome,) = verified("en", ["You must report the change immediately."], context)
    assert outcome is not Support.CONTRADICTED
