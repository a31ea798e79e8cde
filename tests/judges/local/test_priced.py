"""A price against "free": a statement that puts an amount of money on what the context gives
free of charge is contradicted outright — the amount is the price's own words, not a part of
the statement the context fails to mention — in every language, while an amount the context
gives for something else, or a free statement, is not."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "en",
            "Parking at the hospital is free for blue badge holders.",
            "Blue badge holders pay £3 to park at the hospital.",
        ),
        (
            "en",
            "The flu jab is free at the pharmacy for anyone over 65.",
            "At the pharmacy the flu jab costs 12 pounds for anyone over 65.",
        ),
        (
            "de",
            "Der Sprachkurs ist für Geflüchtete kostenlos.",
            "Für Geflüchtete kostet der Sprachkurs 120 Euro.",
        ),
        (
            "fr",
            "La carte de bibliothèque est gratuite pour les étudiants.",
            "Pour les étudiants, la carte de bibliothèque coûte 15 euros.",
        ),
        (
            "es",
            "La primera consulta con el abogado de oficio es gratuita.",
            "La primera consulta con el abogado de oficio cuesta 40 euros.",
        ),
        (
            "it",
            "Il corso di italiano per stranieri è gratuito.",
            "Il corso di italiano per stranieri costa 90 euro.",
        ),
        (
            "pt",
            "A vacina da gripe é gratuita para grávidas.",
            "Para grávidas, a vacina da gripe custa 10 euros.",
        ),
        (
            "nl",
            "De inburgeringscursus is gratis voor asielstatushouders.",
            "Voor asielstatushouders kost de inburgeringscursus 250 euro.",
        ),
    ],
)
def test_a_price_for_what_is_free_is_contradicted(
    language: str, context: str, statement: str
) -> None:
    (found,) = verified(language, [statement], context)
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "en",
            "Parking at the hospital is free for blue badge holders; others pay £3 an hour.",
            "Visitors without a blue badge pay £3 an hour to park at the hospital.",
        ),
        (
            "fr",
            "La carte de bibliothèque est gratuite pour les étudiants.",
            "Pour les étudiants, la carte de bibliothèque ne coûte rien.",
        ),
        (
            "de",
            "Der Sprachkurs ist für Geflüchtete kostenlos, der Test kostet 80 Euro.",
            "Für den Test zahlen Geflüchtete 80 Euro.",
        ),
    ],
)
def test_a_price_the_context_gives_or_a_free_restatement_is_not(
    language: str, context: str, statement: str
) -> None:
    (found,) = verified(language, [statement], context)
    assert found is not Support.CONTRADICTED
