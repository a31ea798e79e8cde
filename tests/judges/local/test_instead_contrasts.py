"""A contrast said with "rather than" or "instead of" is the contrast "..., not ..." says.

"Ring the out-of-hours line rather than your own GP" sets the same contrast as "Ring the
out-of-hours line, not your own GP" (supported), and "Ring your own GP rather than the
out-of-hours line" sets it the other way round (contradicted). The same in German ("statt"),
French ("au lieu de"), Spanish ("en lugar de"), Italian ("invece di"), Portuguese ("em vez
de") and Dutch ("in plaats van")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context with "..., not ...", the same contrast with the cue, the other way round)
CONTRASTS = [
    (
        "en",
        "For a dental abscess at the weekend, call the urgent dental line, not the surgery.",
        "For a dental abscess at the weekend, call the urgent dental line rather than the surgery.",
        "For a dental abscess at the weekend, call the surgery rather than the urgent dental line.",
    ),
    (
        "en",
        "Send the signed contract to the payroll team, not to your line manager.",
        "Send the signed contract to the payroll team instead of your line manager.",
        "Send the signed contract to your line manager instead of the payroll team.",
    ),
    (
        "de",
        "Den Antrag reichen Sie beim Jobcenter ein, nicht bei der Ausländerbehörde.",
        "Den Antrag reichen Sie statt bei der Ausländerbehörde beim Jobcenter ein.",
        "Den Antrag reichen Sie statt beim Jobcenter bei der Ausländerbehörde ein.",
    ),
    (
        "fr",
        "Le formulaire se dépose à la caisse d'allocations familiales, pas à la mairie.",
        "Le formulaire se dépose à la caisse d'allocations familiales au lieu de la mairie.",
        "Le formulaire se dépose à la mairie au lieu de la caisse d'allocations familiales.",
    ),
    (
        "es",
        "La solicitud se entrega en la oficina de extranjería, no en el ayuntamiento.",
        "La solicitud se entrega en la oficina de extranjería en lugar del ayuntamiento.",
        "La solicitud se entrega en el ayuntamiento en lugar de la oficina de extranjería.",
    ),
    (
        "it",
        "Il certificato va all'ufficio del personale, non al responsabile di reparto.",
        "Il certificato va all'ufficio del personale invece che al responsabile di reparto.",
        "Il certificato va al responsabile di reparto invece che all'ufficio del personale.",
    ),
    (
        "pt",
        "O pedido entrega-se na loja do cidadão, não na junta de freguesia.",
        "O pedido entrega-se na loja do cidadão em vez da junta de freguesia.",
        "O pedido entrega-se na junta de freguesia em vez da loja do cidadão.",
    ),
    (
        "nl",
        "Het formulier stuurt u naar de salarisadministratie, niet naar uw leidinggevende.",
        "Het formulier stuurt u naar de salarisadministratie in plaats van naar uw leidinggevende.",
        "Het formulier stuurt u naar uw leidinggevende in plaats van naar de salarisadministratie.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "reversed_"), CONTRASTS)
def test_instead_sets_a_contrast(language: str, context: str, same: str, reversed_: str) -> None:
    kept, caught = verified(language, [same, reversed_], context)
    assert kept is not Support.CONTRADICTED, same
    assert caught is Support.CONTRADICTED, reversed_


def test_the_same_contrast_about_another_medicine_is_not_supported() -> None:
    """Both deny amoxicillin, but the passage gives doxycycline where the statement gives
    another medicine: the shared contrast does not support the statement."""
    context = (
        "If you are allergic to penicillin, your GP will usually prescribe doxycycline "
        "instead of amoxicillin."
    )
    (found,) = verified(
        "en", ["With a penicillin allergy you will get cefalexin rather than amoxicillin."], context
    )
    assert found is not Support.SUPPORTED


#: (language, context "X, not Y", "X and not Y", "Y and not X"): "and not" with no comma
#: before it sets the contrast too.
AND_NOT_CONTRASTS = [
    (
        "en",
        "To have your stitches removed, book with the practice nurse, not the GP.",
        "To have your stitches removed, book with the practice nurse and not the GP.",
        "To have your stitches removed, book with the GP and not the practice nurse.",
    ),
    (
        "de",
        "Den Antrag auf Wohngeld stellen Sie beim Bürgeramt, nicht beim Jobcenter.",
        "Den Antrag auf Wohngeld stellen Sie beim Bürgeramt und nicht beim Jobcenter.",
        "Den Antrag auf Wohngeld stellen Sie beim Jobcenter und nicht beim Bürgeramt.",
    ),
    (
        "nl",
        "Voor het verwijderen van hechtingen maakt u een afspraak bij de assistente, niet bij "
        "de huisarts.",
        "Voor het verwijderen van hechtingen maakt u een afspraak bij de assistente en niet bij "
        "de huisarts.",
        "Voor het verwijderen van hechtingen maakt u een afspraak bij de huisarts en niet bij "
        "de assistente.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "reversed_"), AND_NOT_CONTRASTS)
def test_and_not_sets_a_contrast(language: str, context: str, same: str, reversed_: str) -> None:
    kept, caught = verified(language, [same, reversed_], context)
    assert kept is not Support.CONTRADICTED, same
    assert caught is Support.CONTRADICTED, reversed_
