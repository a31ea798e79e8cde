"""A positive verdict word that governs another verdict word passes that verdict on:
"recommends avoiding X" says "avoid X", so it agrees with a context that says "avoid X" in every
language, and "recommends eating X" still opposes it. Two verdicts joined by "and" stay two."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context that says "avoid", statement that recommends avoiding, statement that
#: recommends the opposite)
CASES = [
    (
        "en",
        "During pregnancy, avoid raw cured meats and unpasteurised soft cheeses.",
        "The clinic recommends avoiding raw cured meats during pregnancy.",
        "The clinic recommends eating raw cured meats during pregnancy.",
    ),
]

#: (language, context, statement): a recommendation to avoid, restated
RESTATED = [
    (
        "it",
        "Durante la gravidanza evitare i salumi crudi e i formaggi a pasta molle non pastorizzati.",
        "Il consultorio raccomanda di evitare in gravidanza i salumi crudi.",
    ),
    (
        "en",
        "During pregnancy, avoid raw cured meats and unpasteurised soft cheeses.",
        "The clinic advises pregnant women to avoid raw cured meats.",
    ),
    (
        "fr",
        "Pendant la grossesse, évitez la charcuterie crue.",
        "Le centre recommande d'éviter la charcuterie crue pendant la grossesse.",
    ),
    (
        "es",
        "Durante el embarazo, evite los embutidos crudos.",
        "El centro recomienda evitar los embutidos crudos durante el embarazo.",
    ),
    (
        "pt",
        "Durante a gravidez, evite enchidos crus.",
        "O centro recomenda evitar enchidos crus durante a gravidez.",
    ),
]


@pytest.mark.parametrize(("lang", "context", "faithful", "wrong"), CASES)
def test_recommending_to_avoid_is_avoiding(
    lang: str, context: str, faithful: str, wrong: str
) -> None:
    assert verified(lang, [faithful, wrong], context) == [
        Support.SUPPORTED,
        Support.CONTRADICTED,
    ]


@pytest.mark.parametrize(("lang", "context", "statement"), RESTATED)
def test_a_recommendation_to_avoid_restates_avoid(lang: str, context: str, statement: str) -> None:
    assert verified(lang, [statement], context) == [Support.SUPPORTED]


def test_two_verdicts_joined_by_and_stay_two() -> None:
    context = "Dolorex is contraindicated in pregnancy."
    statement = "Dolorex is safe and recommended in pregnancy."
    assert verified("en", [statement], context) == [Support.CONTRADICTED]
