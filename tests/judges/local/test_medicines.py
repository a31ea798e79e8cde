"""A medicine the passage never names is never supported: "the GP usually prescribes
ciprofloxacin" against a passage about nitrofurantoin shares every other word, and in any
language a medicine's name is read by its international stem ("-oxacin", "-azole", "-profen")
or as one of the common names ("aspirin", "paracetamol")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.medicines import is_medicine
from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "en",
            "For a urinary tract infection the GP usually prescribes nitrofurantoin for three "
            "days.",
            "The GP usually prescribes nitrofurantoin for three days for a urinary tract "
            "infection.",
            "The GP usually prescribes ciprofloxacin for three days for a urinary tract infection.",
        ),
        (
            "nl",
            "Bij een blaasontsteking schrijft de huisarts meestal nitrofurantoïne voor, vijf "
            "dagen lang.",
            "Meestal schrijft de huisarts nitrofurantoïne voor, vijf dagen lang.",
            "Meestal schrijft de huisarts ciprofloxacine voor, vijf dagen lang.",
        ),
        (
            "fr",
            "En cas de varicelle, la fièvre de l'enfant se traite par paracétamol.",
            "En cas de varicelle, on traite la fièvre de l'enfant par paracétamol.",
            "En cas de varicelle, on traite la fièvre de l'enfant par aspirine.",
        ),
        (
            "es",
            "Si necesita un antihistamínico que no dé sueño, se recomienda la loratadina.",
            "Se recomienda la loratadina si necesita un antihistamínico que no dé sueño.",
            "Se recomienda la cetirizina si necesita un antihistamínico que no dé sueño.",
        ),
    ],
)
def test_a_medicine_the_passage_never_names_is_not_supported(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is Support.SUPPORTED, faithful
    assert caught is not Support.SUPPORTED, wrong


@pytest.mark.parametrize(
    "word",
    [
        "ciprofloxacin",
        "ciprofloxacine",
        "metronidazol",
        "ibuprofène",
        "omeprazole",
        "amoxicillin",
        "atorvastatina",
        "aspirin",
        "paracetamol",
        "loratadina",
    ],
)
def test_medicine_names_are_read(word: str) -> None:
    assert is_medicine(word)


@pytest.mark.parametrize(
    "word", ["prescribes", "infection", "medicine", "pregnancy", "online", "reason", "season"]
)
def test_other_words_are_no_medicine(word: str) -> None:
    assert not is_medicine(word)
