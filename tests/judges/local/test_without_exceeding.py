"""A limit said as "without exceeding N" or "not exceeding N" ("sem exceder", "não
excedendo", "sin exceder", "senza superare", "non superando", "sans dépasser") is an upper
bound: a statement with another maximum is contradicted, the same maximum is not — the "not"
or "without" bounds the amount and denies nothing."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

CASES = [
    (
        "en",
        "Adults: one tablet every 8 hours, without exceeding 3 tablets a day.",
        "You can take at most five tablets a day.",
        "You can take at most three tablets a day.",
    ),
    (
        "en",
        "Adults: one tablet every 8 hours, not exceeding 3 tablets a day.",
        "You can take at most five tablets a day.",
        "You can take at most three tablets a day.",
    ),
    (
        "pt",
        "Adultos: 1 comprimido de 8 em 8 horas, não excedendo 3 comprimidos por dia.",
        "No máximo cinco comprimidos por dia.",
        "No máximo três comprimidos por dia.",
    ),
    (
        "pt",
        "Adultos: 1 comprimido de 8 em 8 horas, sem exceder 3 comprimidos por dia.",
        "No máximo cinco comprimidos por dia.",
        "No máximo três comprimidos por dia.",
    ),
    (
        "es",
        "Adultos: un comprimido cada 8 horas, sin exceder 3 comprimidos al día.",
        "Como máximo puede tomar cinco comprimidos al día.",
        "Como máximo puede tomar tres comprimidos al día.",
    ),
    (
        "es",
        "Adultos: un comprimido cada 8 horas, no excediendo 3 comprimidos al día.",
        "Como máximo puede tomar cinco comprimidos al día.",
        "Como máximo puede tomar tres comprimidos al día.",
    ),
    (
        "it",
        "Adulti: una compressa ogni 8 ore, senza superare 3 compresse al giorno.",
        "Al massimo può prendere cinque compresse al giorno.",
        "Al massimo può prendere tre compresse al giorno.",
    ),
    (
        "it",
        "Adulti: una compressa ogni 8 ore, non superando le 3 compresse al giorno.",
        "Al massimo può prendere cinque compresse al giorno.",
        "Al massimo può prendere tre compresse al giorno.",
    ),
    (
        "fr",
        "Adultes : un comprimé toutes les 8 heures, sans dépasser 3 comprimés par jour.",
        "Vous pouvez prendre au maximum cinq comprimés par jour.",
        "Vous pouvez prendre au maximum trois comprimés par jour.",
    ),
]

#: The bound's verb after the amount ("ohne 3 Tabletten ... zu überschreiten"): not yet read.
AFTER_THE_AMOUNT = [
    (
        "de",
        "Erwachsene: alle 8 Stunden eine Tablette, ohne 3 Tabletten am Tag zu überschreiten.",
        "Sie dürfen höchstens fünf Tabletten am Tag nehmen.",
        "Sie dürfen höchstens drei Tabletten am Tag nehmen.",
    ),
    (
        "nl",
        "Volwassenen: elke 8 uur één tablet, zonder 3 tabletten per dag te overschrijden.",
        "U mag maximaal vijf tabletten per dag nemen.",
        "U mag maximaal drie tabletten per dag nemen.",
    ),
]


@pytest.mark.parametrize(("language", "context", "wrong", "right"), CASES)
def test_another_maximum_is_contradicted(
    language: str, context: str, wrong: str, right: str
) -> None:
    (found,) = verified(language, [wrong], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(("language", "context", "wrong", "right"), CASES + AFTER_THE_AMOUNT)
def test_the_same_maximum_is_not_contradicted(
    language: str, context: str, wrong: str, right: str
) -> None:
    (found,) = verified(language, [right], context)
    assert found is not Support.CONTRADICTED


@pytest.mark.xfail(reason="a bound whose verb follows the amount is not read yet")
@pytest.mark.parametrize(("language", "context", "wrong", "right"), AFTER_THE_AMOUNT)
def test_another_maximum_with_the_verb_after_the_amount_is_contradicted(
    language: str, context: str, wrong: str, right: str
) -> None:
    (found,) = verified(language, [wrong], context)
    assert found is Support.CONTRADICTED
