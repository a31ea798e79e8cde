"""A contrast turned around: the passage says "at A, not at B" and the answer "at B, not at
A". Both name the same places and both deny one of them, so word coverage and negation
parity agree; what differs is which one is denied."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "en",
            "Your deposit is protected with the Deposit Protection Service, not with the "
            "letting agent.",
            "It is held by the Deposit Protection Service, not by the letting agent.",
            "It is held by the letting agent, not by the Deposit Protection Service.",
        ),
        (
            "en",
            "Claims are made at the Jobcentre on King Street, not at the town hall.",
            "You claim at the Jobcentre on King Street, not the town hall.",
            "You claim at the town hall, not the Jobcentre on King Street.",
        ),
        (
            "de",
            "Den Antrag stellen Sie bei der Ausländerbehörde im Rathaus, nicht beim Jobcenter.",
            "Bei der Ausländerbehörde im Rathaus, nicht beim Jobcenter.",
            "Beim Jobcenter, nicht bei der Ausländerbehörde im Rathaus.",
        ),
        (
            "fr",
            "La demande se dépose en préfecture, et non à la mairie.",
            "Il faut la déposer en préfecture, pas à la mairie.",
            "Il faut la déposer à la mairie, pas en préfecture.",
        ),
        (
            "es",
            "La solicitud se presenta en la Oficina de Extranjería, no en la comisaría.",
            "Se presenta en la Oficina de Extranjería, no en la comisaría.",
            "Se presenta en la comisaría, no en la Oficina de Extranjería.",
        ),
        (
            "nl",
            "U meldt zich bij het aanmeldcentrum in Ter Apel, niet bij de gemeente.",
            "Bij het aanmeldcentrum in Ter Apel, niet bij de gemeente.",
            "Bij de gemeente, niet bij het aanmeldcentrum in Ter Apel.",
        ),
    ],
)
def test_the_denied_side_of_a_contrast_is_compared(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is Support.CONTRADICTED, wrong


def test_a_denial_of_something_the_passage_does_not_affirm_is_no_swap() -> None:
    """Both deny the same thing: no contrast turned around."""
    context = "Tenants pay the council tax, not the landlord."
    (found,) = verified("en", ["The landlord does not pay the council tax, tenants do."], context)
    assert found is not Support.CONTRADICTED
