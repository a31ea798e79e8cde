"""A date written in figures, day first ("14.10.", "30.06.2026", "30/04"), is the same date
as the one written with its month's name ("14. Oktober", "30 avril"); a decimal or a clock
time is not a date ("14.10 Euro", "um 9.30 Uhr")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "text", "dates"),
    [
        ("de", "Am 14.10., einem Dienstag, um neun Uhr.", [1014.0]),
        ("de", "Spätestens bis zum 30.06. einreichen.", [630.0]),
        ("de", "Der Termin ist am 14.10.2026 um 9 Uhr.", [1014.0]),
        ("fr", "Déposez le dossier avant le 30/04.", [430.0]),
        ("es", "El plazo termina el 31/03/2026.", [331.0]),
        ("en", "Send it by 30/04.", [430.0]),
    ],
)
def test_a_date_in_figures_is_a_date(language: str, text: str, dates: list[float]) -> None:
    with reading(language):
        found = [v.amount for v in extract(text) if v.kind == "date"]
    assert found == dates


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Das kostet 14.10 Euro."),
        ("de", "Wir öffnen um 9.30 Uhr."),
        ("en", "It is 3/4 full."),
    ],
)
def test_a_decimal_or_a_time_is_no_date(language: str, text: str) -> None:
    with reading(language):
        assert not [v for v in extract(text) if v.kind == "date"]


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "de",
            "Die Einspruchsfrist endet am 30. Juni. Danach wird der Bescheid bestandskräftig.",
            "Die Einspruchsfrist endet am 30.06.",
            "Die Einspruchsfrist endet am 30.07.",
        ),
        (
            "fr",
            "Les demandes de congés pour juillet et août doivent être déposées avant le 31 mars.",
            "Les demandes de congés pour juillet et août doivent être déposées avant le 31/03.",
            "Les demandes de congés pour juillet et août doivent être déposées avant le 30/04.",
        ),
    ],
)
def test_a_date_in_figures_is_compared_with_the_named_month(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is Support.CONTRADICTED, wrong
