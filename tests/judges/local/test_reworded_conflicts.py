"""A value conflict in a statement that rewords the rest of its sentence: the context's
sentence need only hold half of the statement's other words (weighted) for a different value
to be a stated conflict, so a restated limit, count or price with the wrong amount is
contradicted outright rather than left unsure — while the same amount in other words is not."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

HEAVILY_REWORDED = [
    (
        "en",
        "Adults may take no more than 4 g of paracetamol in 24 hours.",
        "A grown-up can have up to 6 g of paracetamol over a whole day and night.",
        "A grown-up can have up to 4 g of paracetamol over a whole day and night.",
    ),
    (
        "fr",
        "La demande de regroupement familial est examinée dans un délai de six mois.",
        "Il faut compter neuf mois au plus pour que la préfecture étudie votre demande de"
        " regroupement familial.",
        "Il faut compter six mois au plus pour que la préfecture étudie votre demande de"
        " regroupement familial.",
    ),
    (
        "es",
        "Las embarazadas pueden tomar como máximo 200 mg de cafeína al día.",
        "Si estás embarazada, lo aconsejable es no pasar de 300 mg de cafeína diarios en total.",
        "Si estás embarazada, lo aconsejable es no pasar de 200 mg de cafeína diarios en total.",
    ),
]


CASES = [
    (
        "de",
        "Der Urlaubsanspruch beträgt bei einer Fünftagewoche 24 Werktage im Jahr.",
        "Wer fünf Tage pro Woche arbeitet, hat jährlich Anspruch auf 30 Werktage Urlaub.",
        "Wer fünf Tage pro Woche arbeitet, hat jährlich Anspruch auf 24 Werktage Urlaub.",
    ),
    (
        "en",
        "Adults may take no more than 4 g of paracetamol in 24 hours.",
        "Adults should never take over 6 g of paracetamol within a 24-hour period.",
        "Adults should never take over 4 g of paracetamol within a 24-hour period.",
    ),
    (
        "de",
        "Der Urlaubsanspruch beträgt bei einer Fünftagewoche 24 Werktage im Jahr.",
        "Bei einer Fünftagewoche stehen Ihnen pro Jahr 30 Werktage Urlaub zu.",
        "Bei einer Fünftagewoche stehen Ihnen pro Jahr 24 Werktage Urlaub zu.",
    ),
    (
        "fr",
        "La demande de regroupement familial est examinée dans un délai de six mois.",
        "Votre demande de regroupement familial sera normalement examinée sous neuf mois.",
        "Votre demande de regroupement familial sera normalement examinée sous six mois.",
    ),
    (
        "it",
        "Il contratto prevede 26 giorni di ferie all'anno per chi lavora a tempo pieno.",
        "Chi lavora a tempo pieno ha diritto, secondo il contratto, a 20 giorni di ferie"
        " ogni anno.",
        "Chi lavora a tempo pieno ha diritto, secondo il contratto, a 26 giorni di ferie"
        " ogni anno.",
    ),
]


#: Reworded so that the context's sentence holds between half and 70 % of the statement's
#: other words (weighted): contradicted only since the frame asks for half, not 70 %.
HALF_REWORDED = [
    (
        "en",
        "Adults may take no more than 4 g of paracetamol in 24 hours.",
        "Grown-ups should never take over 6 g of paracetamol in 24 hours.",
        "Grown-ups should never take over 4 g of paracetamol in 24 hours.",
    ),
    (
        "de",
        "Der Urlaubsanspruch beträgt bei einer Fünftagewoche 24 Werktage im Jahr.",
        "Wer eine Fünftagewoche hat, bekommt im Jahr 30 Werktage Urlaub.",
        "Wer eine Fünftagewoche hat, bekommt im Jahr 24 Werktage Urlaub.",
    ),
    (
        "fr",
        "La demande de regroupement familial est examinée dans un délai de six mois.",
        "La préfecture examine votre dossier de regroupement familial en neuf mois.",
        "La préfecture examine votre dossier de regroupement familial en six mois.",
    ),
]


@pytest.mark.parametrize(("language", "context", "wrong", "faithful"), CASES + HALF_REWORDED)
def test_a_reworded_statement_with_another_value_is_contradicted(
    language: str, context: str, wrong: str, faithful: str
) -> None:
    (found,) = verified(language, [wrong], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "context", "wrong", "faithful"), CASES + HALF_REWORDED + HEAVILY_REWORDED
)
def test_the_same_value_reworded_is_not_contradicted(
    language: str, context: str, wrong: str, faithful: str
) -> None:
    (found,) = verified(language, [faithful], context)
    assert found is not Support.CONTRADICTED


@pytest.mark.xfail(reason="a sentence reworded beyond half of its words is not yet matched")
@pytest.mark.parametrize(("language", "context", "wrong", "faithful"), HEAVILY_REWORDED)
def test_a_heavily_reworded_statement_with_another_value_is_contradicted(
    language: str, context: str, wrong: str, faithful: str
) -> None:
    (found,) = verified(language, [wrong], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "es",
            "Las embarazadas pueden tomar como máximo 200 mg de cafeína al día.",
            "Durante el embarazo no conviene pasar de 300 mg de cafeína al día.",
        ),
        (
            "pt",
            "Durante a gravidez, não deve tomar mais de 200 mg de cafeína por dia.",
            "Na gravidez pode tomar café, desde que não passe dos 300 mg de cafeína por dia.",
        ),
    ],
)
def test_not_going_past_another_amount_is_no_denial(
    language: str, context: str, statement: str
) -> None:
    """ "no pasar de 300 mg" bounds the amount ("at most 300 mg"); it does not deny the limit,
    so another limit than the context's is never read as supported."""
    (found,) = verified(language, [statement], context)
    assert found is not Support.SUPPORTED


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "en",
            "Asylum seekers must register at the reception centre in Croydon. Those who arrive"
            " by plane report to the border police at the airport.",
            "Asylum seekers who did not arrive by plane, must register at the reception centre"
            " in Leeds.",
        ),
        (
            "nl",
            "Asielzoekers melden zich bij het aanmeldcentrum in Ter Apel. Wie per vliegtuig"
            " aankomt, meldt zich bij de marechaussee op Schiphol.",
            "Asielzoekers die niet met het vliegtuig komen, melden zich bij het aanmeldcentrum"
            " in Budel.",
        ),
    ],
)
def test_a_negation_of_another_clause_does_not_deny_the_value(
    language: str, context: str, statement: str
) -> None:
    """A "not" that a comma keeps from the value denies its own clause ("who did not arrive
    by plane"), not the place the statement names."""
    (found,) = verified(language, [statement], context)
    assert found is not Support.SUPPORTED
