"""Opposites made with a negative prefix ("paid" / "unpaid", "suitable" / "unsuitable") and
the words for making a phone call read as the same verb."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.scoring import MetaRAG

FLAGGED = 0.5


def _score(answer: str, context: str) -> float:
    return MetaRAG(LocalJudge()).score_sync("What should I know?", answer, [context]).score


@pytest.mark.parametrize(
    ("context", "contradicted", "faithful"),
    [
        (
            "Meal breaks are unpaid. The two short rest breaks are paid.",
            "Meal breaks are paid.",
            "Meal breaks are unpaid.",
        ),
        (
            "This cream is unsuitable for children under two.",
            "This cream is suitable for children under two.",
            "For children under two this cream is unsuitable.",
        ),
        (
            "Overtime is compulsory during the stock-take week.",
            "Overtime is optional during the stock-take week.",
            "During the stock-take week overtime is compulsory.",
        ),
    ],
)
def test_a_prefixed_opposite_contradicts(context: str, contradicted: str, faithful: str) -> None:
    assert _score(contradicted, context) >= FLAGGED
    assert _score(faithful, context) < FLAGGED


def test_ring_and_call_are_the_same_verb() -> None:
    context = "If you have chest pain, call the emergency line straight away."
    assert (
        _score("If you have chest pain, ring the emergency line straight away.", context) < FLAGGED
    )


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("The clinic does not charge.", False),
        ("The clinic is free of charge.", False),
        ("The clinic charges a fee.", True),
    ],
)
def test_free_of_charge_denies_a_charge(answer: str, flagged: bool) -> None:
    context = "The legal advice clinic is free of charge. Appointments last 20 minutes."
    assert (_score(answer, context) >= FLAGGED) is flagged


def test_free_of_charge_does_not_deny_what_comes_before_it() -> None:
    assert _score("Guests can use the gym.", "Guests can use the gym free of charge.") < FLAGGED
