"""A limit per day restated against one per 24 hours ("trois comprimés par jour" / "3
comprimés par 24 heures"): the rate's period is given by a length of time, so the same count
is supported and another count is contradicted; another period is never supported."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

CASES = [
    (
        "fr",
        "Ne pas dépasser 3 comprimés par 24 heures.",
        "Vous pouvez prendre jusqu'à trois comprimés par jour.",
        "Vous pouvez prendre jusqu'à cinq comprimés par jour.",
        "Vous pouvez prendre jusqu'à trois comprimés par semaine.",
    ),
    (
        "es",
        "No tome más de 3 comprimidos en 24 horas.",
        "Puede tomar hasta tres comprimidos al día.",
        "Puede tomar hasta cinco comprimidos al día.",
        "Puede tomar hasta tres comprimidos por semana.",
    ),
    (
        "it",
        "Non superare 3 compresse nelle 24 ore.",
        "Può prendere fino a tre compresse al giorno.",
        "Può prendere fino a cinque compresse al giorno.",
        "Può prendere fino a tre compresse alla settimana.",
    ),
    (
        "pt",
        "Não tome mais de 3 comprimidos em 24 horas.",
        "Pode tomar até três comprimidos por dia.",
        "Pode tomar até cinco comprimidos por dia.",
        "Pode tomar até três comprimidos por semana.",
    ),
    (
        "de",
        "Nehmen Sie nicht mehr als 3 Tabletten in 24 Stunden.",
        "Höchstens drei Tabletten pro Tag.",
        "Höchstens fünf Tabletten pro Tag.",
        "Höchstens drei Tabletten pro Woche.",
    ),
    (
        "nl",
        "Neem niet meer dan 3 tabletten per 24 uur.",
        "Maximaal drie tabletten per dag.",
        "Maximaal vijf tabletten per dag.",
        "Maximaal drie tabletten per week.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "more", "weekly"), CASES)
def test_the_same_count_per_day_is_supported(
    language: str, context: str, same: str, more: str, weekly: str
) -> None:
    (found,) = verified(language, [same], context)
    assert found is Support.SUPPORTED


@pytest.mark.parametrize(("language", "context", "same", "more", "weekly"), CASES)
def test_another_count_per_day_is_contradicted(
    language: str, context: str, same: str, more: str, weekly: str
) -> None:
    (found,) = verified(language, [more], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(("language", "context", "same", "more", "weekly"), CASES)
def test_another_period_is_not_supported(
    language: str, context: str, same: str, more: str, weekly: str
) -> None:
    (found,) = verified(language, [weekly], context)
    assert found is not Support.SUPPORTED
