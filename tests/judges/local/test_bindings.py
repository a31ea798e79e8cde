"""A value the passage gives for another word: when a sentence lists "A with X, B with Y",
the statement "A with Y" is contradicted, in any language; a part that names no subject of its
own ("and £20 for the photos") or goes on with a pronoun keeps what it says."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

CLINICS = (
    "Dr Patel runs the asthma clinic on Mondays, and Dr Rossi does the baby checks on "
    "Wednesdays. Appointments for either are booked at reception."
)


@pytest.mark.parametrize(
    ("language", "context", "wrong"),
    [
        (
            "it",
            "Il dottor Bassi segue l'ambulatorio dell'asma il lunedì, e la dottoressa Conti fa "
            "i controlli dei neonati il mercoledì.",
            "I controlli dei neonati li fa il dottor Bassi il mercoledì.",
        ),
        (
            "fr",
            "Envoyez les volets 1 et 2 à votre caisse d'assurance maladie, et le volet 3 à "
            "votre employeur, sous 48 heures.",
            "Le volet 3 est à envoyer à votre caisse d'assurance maladie.",
        ),
        (
            "de",
            "Die Vertretung übernimmt Frau Dr. Brandt in der Gartenstraße 9; Rezepte bestellen "
            "Sie bei Frau Öztürk am Empfang.",
            "Frau Öztürk übernimmt die Vertretung in der Gartenstraße 9.",
        ),
        (
            "es",
            "Las curas las hace la enfermera Marta Gil los martes; las vacunas infantiles las "
            "pone el enfermero Javier Ruiz los jueves.",
            "Las curas las hace Javier Ruiz los martes.",
        ),
    ],
)
def test_a_value_moved_to_the_other_part_is_contradicted(
    language: str, context: str, wrong: str
) -> None:
    (outcome,) = verified(language, [wrong], context)
    assert outcome is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "context", "faithful"),
    [
        ("en", CLINICS, "Dr Rossi does the baby checks on Wednesdays."),
        ("en", CLINICS, "The asthma clinic is run by Dr Patel on Mondays."),
        (
            "en",
            "You pay £50 for the passport and £20 for the photos.",
            "You pay £20 for the photos.",
        ),
        (
            "en",
            "Dr Patel runs the asthma clinic on Mondays. She also sees diabetic patients on "
            "Fridays.",
            "Dr Patel sees diabetic patients on Fridays.",
        ),
        (
            "fr",
            "Envoyez les volets 1 et 2 à votre caisse d'assurance maladie, et le volet 3 à "
            "votre employeur, sous 48 heures.",
            "Le volet 3 va à votre employeur.",
        ),
    ],
)
def test_a_value_in_its_own_part_stays(language: str, context: str, faithful: str) -> None:
    (outcome,) = verified(language, [faithful], context)
    assert outcome is not Support.CONTRADICTED
