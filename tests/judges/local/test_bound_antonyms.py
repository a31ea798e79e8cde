"""An antonym that turns a limit around ("Don't go over 1,200 mg" -> "Go over 1,200 mg")
reverses its factoid, though the negation it drops is read as part of the bound, not as a
denial: the variant must not inherit the factoid's support."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "factoid", "antonym"),
    [
        (
            "en",
            "Adults should take no more than 1,200 mg of ibuprofen in 24 hours.",
            "Don't go over 1,200 mg of ibuprofen in 24 hours.",
            "Go over 1,200 mg of ibuprofen in 24 hours.",
        ),
        (
            "en",
            "Take no more than 1,200 mg of ibuprofen in 24 hours unless a doctor advises more.",
            "Don't go over 1,200 mg in any 24-hour period unless your doctor tells you to.",
            "Go over 1,200 mg in any 24-hour period unless your doctor tells you to.",
        ),
        (
            "en",
            "Students may work at most 20 hours a week during term time.",
            "Students must not work more than 20 hours a week during term time.",
            "Students must work more than 20 hours a week during term time.",
        ),
        (
            "fr",
            "Chez l'adulte, ne dépassez pas 3 g de paracétamol par jour.",
            "Un adulte ne doit pas dépasser 3 g de paracétamol par jour.",
            "Un adulte doit dépasser 3 g de paracétamol par jour.",
        ),
    ],
)
def test_an_antonym_that_turns_a_limit_around_is_not_supported(
    language: str, context: str, factoid: str, antonym: str
) -> None:
    own, turned = verified(language, [factoid, antonym], context, [factoid, factoid])
    assert own is not Support.CONTRADICTED
    assert turned is not Support.SUPPORTED
