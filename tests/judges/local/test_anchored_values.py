"""A restatement in other words is supported when the passage's sentence gives every value it
states, and gives no other value of the same kind; the statement keeps its polarity. Values are
what a reworded answer cannot change without changing the fact ("sous deux semaines" for "dans
un délai de 14 jours"), so the words around them may differ."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "restated"),
    [
        (
            "fr",
            "Le remboursement intervient dans un délai de 14 jours après réception du dossier.",
            "Votre argent vous est rendu sous deux semaines une fois le dossier reçu.",
        ),
        (
            "es",
            "La devolución de la fianza se realizará en el plazo máximo de 30 días desde la "
            "entrega de las llaves.",
            "Te tienen que devolver el depósito como muy tarde treinta días después de dar las "
            "llaves.",
        ),
        (
            "de",
            "Der Antrag auf Elterngeld kann rückwirkend für höchstens 3 Monate gestellt werden.",
            "Rückwirkend bekommt man das Elterngeld für maximal drei Monate.",
        ),
        (
            "it",
            "Il certificato medico va inviato all'INPS entro 2 giorni dall'inizio della malattia.",
            "Hai due giorni di tempo dal primo giorno di malattia per far arrivare il "
            "certificato all'INPS.",
        ),
        (
            "en",
            "Your landlord must protect your deposit within 30 days of receiving it.",
            "The deposit has to go into a protection scheme within thirty days of you paying it.",
        ),
    ],
)
def test_a_reworded_statement_with_the_passages_values_is_supported(
    language: str, context: str, restated: str
) -> None:
    assert verified(language, [restated], context) == [Support.SUPPORTED]


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        # another value than the sentence gives
        (
            "fr",
            "Le remboursement intervient dans un délai de 14 jours après réception du dossier.",
            "Votre argent vous est rendu sous trois semaines une fois le dossier reçu.",
        ),
        # the sentence gives two values of the kind: which one is the statement's is not read
        (
            "fr",
            "Le préavis est de 15 jours pour les employés et de 30 jours pour les cadres.",
            "En tant que cadre, vous devez prévenir quinze jours avant de partir.",
        ),
        # the statement denies what the sentence says
        (
            "fr",
            "Le remboursement intervient dans un délai de 14 jours après réception du dossier.",
            "Votre argent ne vous est pas rendu sous deux semaines une fois le dossier reçu.",
        ),
        # a bare number (a telephone number) is no anchor for the words around it
        (
            "fr",
            "En cas de suspicion d'AVC, appelez le 15 et ne donnez rien à boire.",
            "Faites-lui boire un grand verre d'eau puis composez le 15.",
        ),
    ],
)
def test_values_alone_do_not_support_a_statement_when_they_do_not_decide_it(
    language: str, context: str, statement: str
) -> None:
    assert verified(language, [statement], context) != [Support.SUPPORTED]


@pytest.mark.parametrize(
    ("language", "words", "figures"),
    [
        ("es", "hasta el cinco de noviembre", "hasta el 5 de noviembre"),
        ("fr", "avant le trois mars", "avant le 3 mars"),
        ("it", "entro il dieci di luglio", "entro il 10 luglio"),
        ("en", "by the seventh of June", "by 7 June"),
    ],
)
def test_a_day_in_words_before_its_month_is_a_date(language: str, words: str, figures: str) -> None:
    with reading(language):
        said = [(v.kind, v.amount) for v in extract(words)]
        given = [(v.kind, v.amount) for v in extract(figures)]
    assert said == given != []
    assert said[0][0] == "date"


@pytest.mark.parametrize(
    ("language", "context", "restated"),
    [
        (
            "fr",
            "La demande doit être déposée au cours des deux mois précédant l'expiration du titre.",
            "Vous devez envoyer la demande dans les soixante jours avant que le titre expire.",
        ),
        (
            "de",
            "Der Mutterschutz nach der Geburt dauert bei Mehrlingen drei Monate.",
            "Nach einer Zwillingsgeburt hat die Mutter zwölf Wochen Schutzfrist.",
        ),
    ],
)
def test_months_said_in_days_or_weeks_anchor_a_restatement(
    language: str, context: str, restated: str
) -> None:
    """A month is 28 to 31 days: "soixante jours" gives "deux mois" for support (never for a
    conflict: the two are not the same amount)."""
    assert verified(language, [restated], context) == [Support.SUPPORTED]


def test_weeks_that_are_not_the_months_anchor_nothing() -> None:
    context = "La demande doit être déposée au cours des deux mois précédant l'expiration du titre."
    wrong = "Vous devez envoyer la demande dans les trois semaines avant que le titre expire."
    assert verified("fr", [wrong], context) != [Support.SUPPORTED]


PRÉAVIS = "Le préavis est de 15 jours pour les employés et de 30 jours pour les cadres."


def test_a_value_is_read_in_its_own_part_of_a_listing_sentence() -> None:
    """A sentence giving one value per case anchors the value of the case the statement
    names ("employés": 15 days), never the other case's ("cadres": 30 days)."""
    kept, swapped = verified(
        "fr",
        [
            "Pour un employé, il faut prévenir quinze jours avant de partir.",
            "Pour un cadre, il faut prévenir quinze jours avant de partir.",
        ],
        PRÉAVIS,
    )
    assert kept is Support.SUPPORTED
    assert swapped is not Support.SUPPORTED


def test_no_later_than_is_a_deadline_not_a_denial() -> None:
    """ "no later than thirty days" bounds the days ("within 30 days"); it denies nothing."""
    context = "Your landlord must protect your deposit within 30 days of receiving it."
    kept, moved = verified(
        "en",
        [
            "The deposit has to be in a protection scheme no later than thirty days after "
            "you pay it.",
            "The deposit has to be in a protection scheme no later than sixty days after "
            "you pay it.",
        ],
        context,
    )
    assert kept is Support.SUPPORTED
    assert moved is not Support.SUPPORTED
