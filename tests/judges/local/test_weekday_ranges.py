"""A weekday outside the range of days the passage gives ("open from Tuesday to Sunday") is
another value, in every language, though the passage may name that day elsewhere ("On Mondays
it is closed"); a day inside the range is no conflict, and denying the day outside is true."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "inside", "outside"),
    [
        (
            "en",
            "The museum is open from Tuesday to Sunday. On Mondays it is closed, except on "
            "bank holidays.",
            "The museum is open on Wednesday.",
            "The museum is open on Monday.",
        ),
        (
            "en",
            "The advice line is open Monday to Friday, 9am to 5pm.",
            "The advice line is open on Thursdays.",
            "The advice line is open on Saturdays.",
        ),
        (
            "it",
            "Il museo è aperto dal martedì alla domenica. Il lunedì è chiuso, tranne nei giorni "
            "festivi.",
            "Il museo è aperto il giovedì.",
            "Il museo è aperto anche il lunedì.",
        ),
        (
            "de",
            "Die Ausländerbehörde ist von Montag bis Donnerstag geöffnet.",
            "Die Ausländerbehörde ist am Dienstag geöffnet.",
            "Die Ausländerbehörde ist am Freitag geöffnet.",
        ),
        (
            "fr",
            "La permanence juridique est ouverte du lundi au jeudi.",
            "La permanence juridique est ouverte le mercredi.",
            "La permanence juridique est ouverte le samedi.",
        ),
        (
            "es",
            "La oficina de empleo atiende de lunes a viernes.",
            "La oficina de empleo atiende los martes.",
            "La oficina de empleo atiende los domingos.",
        ),
        (
            "nl",
            "Het spreekuur is van maandag tot en met woensdag.",
            "Het spreekuur is op dinsdag.",
            "Het spreekuur is op vrijdag.",
        ),
    ],
)
def test_a_day_outside_the_range_conflicts(
    language: str, context: str, inside: str, outside: str
) -> None:
    kept, caught = verified(language, [inside, outside], context)
    assert kept is not Support.CONTRADICTED, inside
    assert caught is Support.CONTRADICTED, outside


def test_denying_the_day_outside_the_range_is_true() -> None:
    (found,) = verified(
        "en",
        ["The advice line is not open on Saturdays."],
        "The advice line is open Monday to Friday, 9am to 5pm.",
    )
    assert found is not Support.CONTRADICTED


def test_days_in_a_list_are_no_range() -> None:
    """ "Monday and Friday" names two days, not the days between them."""
    (found,) = verified(
        "en",
        ["The clinic is open on Wednesday."],
        "The clinic is open on Monday and Friday.",
    )
    assert found is not Support.SUPPORTED
