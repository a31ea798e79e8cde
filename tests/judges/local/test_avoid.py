""" "Avoid X" in every language ("Évitez", "Evite", "Evitare", "Meiden Sie", "Vermijd")
forbids X: a statement that allows it is contradicted, one that forbids it is not."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

CASES = [
    (
        "en",
        "Avoid alcohol while taking this medicine.",
        "You can drink alcohol while taking this medicine.",
        "Do not drink alcohol while taking this medicine.",
    ),
    (
        "fr",
        "Évitez l'alcool pendant le traitement.",
        "Vous pouvez boire de l'alcool pendant le traitement.",
        "Ne buvez pas d'alcool pendant le traitement.",
    ),
    (
        "es",
        "Evite el alcohol durante el tratamiento.",
        "Puede beber alcohol durante el tratamiento.",
        "No beba alcohol durante el tratamiento.",
    ),
    (
        "it",
        "Evitare l'alcol durante il trattamento.",
        "Può bere alcol durante il trattamento.",
        "Non beva alcol durante il trattamento.",
    ),
    (
        "pt",
        "Evite o álcool durante o tratamento.",
        "Pode beber álcool durante o tratamento.",
        "Não beba álcool durante o tratamento.",
    ),
    (
        "de",
        "Meiden Sie Alkohol während der Behandlung.",
        "Sie dürfen während der Behandlung Alkohol trinken.",
        "Trinken Sie während der Behandlung keinen Alkohol.",
    ),
    (
        "nl",
        "Vermijd alcohol tijdens de behandeling.",
        "U mag tijdens de behandeling alcohol drinken.",
        "Drink tijdens de behandeling geen alcohol.",
    ),
]


@pytest.mark.parametrize(("language", "context", "allowed", "forbidden"), CASES)
def test_allowing_what_the_passage_says_to_avoid_is_contradicted(
    language: str, context: str, allowed: str, forbidden: str
) -> None:
    (found,) = verified(language, [allowed], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(("language", "context", "allowed", "forbidden"), CASES)
def test_forbidding_what_the_passage_says_to_avoid_is_not_contradicted(
    language: str, context: str, allowed: str, forbidden: str
) -> None:
    (found,) = verified(language, [forbidden], context)
    assert found is not Support.CONTRADICTED
