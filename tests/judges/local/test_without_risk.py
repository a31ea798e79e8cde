""" "Without risk" ("sans risque", "sin riesgo", "senza rischi", "sem risco", "ohne Risiko",
"zonder risico") says *safely*: it denies no word of the statement, so "can be taken without
risk" against "must not be taken" is contradicted in every language, not read as two
negations that cancel."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

CASES = [
    (
        "en",
        "Live vaccines must not be given to people with a weakened immune system.",
        "Live vaccines can be given without risk to people with a weakened immune system.",
        "Live vaccines cannot be given without risk to people with a weakened immune system.",
    ),
    (
        "fr",
        "Ce médicament ne doit pas être pris pendant l'allaitement.",
        "Ce médicament peut être pris sans risque pendant l'allaitement.",
        "Ce médicament ne peut pas être pris sans risque pendant l'allaitement.",
    ),
    (
        "es",
        "Este medicamento no debe tomarse durante la lactancia.",
        "Este medicamento puede tomarse sin riesgo durante la lactancia.",
        "Este medicamento no puede tomarse sin riesgo durante la lactancia.",
    ),
    (
        "it",
        "Questo farmaco non deve essere assunto durante l'allattamento.",
        "Questo farmaco può essere assunto senza rischi durante l'allattamento.",
        "Questo farmaco non può essere assunto senza rischi durante l'allattamento.",
    ),
    (
        "pt",
        "Este medicamento não deve ser tomado durante a amamentação.",
        "Este medicamento pode ser tomado sem risco durante a amamentação.",
        "Este medicamento não pode ser tomado sem risco durante a amamentação.",
    ),
    (
        "de",
        "Dieses Medikament darf in der Stillzeit nicht eingenommen werden.",
        "Dieses Medikament kann in der Stillzeit ohne Risiko eingenommen werden.",
        "Dieses Medikament kann in der Stillzeit nicht ohne Risiko eingenommen werden.",
    ),
    (
        "nl",
        "Dit geneesmiddel mag tijdens de borstvoeding niet worden gebruikt.",
        "Dit geneesmiddel kan tijdens de borstvoeding zonder risico worden gebruikt.",
        "Dit geneesmiddel kan tijdens de borstvoeding niet zonder risico worden gebruikt.",
    ),
]


@pytest.mark.parametrize(("language", "context", "wrong", "right"), CASES)
def test_allowed_without_risk_against_a_ban_is_contradicted(
    language: str, context: str, wrong: str, right: str
) -> None:
    (found,) = verified(language, [wrong], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(("language", "context", "wrong", "right"), CASES)
def test_not_without_risk_against_a_ban_is_not_contradicted(
    language: str, context: str, wrong: str, right: str
) -> None:
    (found,) = verified(language, [right], context)
    assert found is not Support.CONTRADICTED
