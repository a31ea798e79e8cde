"""A medicine the passage only advises against, recommended: "Avoid ibuprofen" and an answer
that gives ibuprofen as the one to take. The answer shares the passage's words (the medicine
included), so word coverage alone supports it; the passage names that medicine only where it
denies it ("avoid", "do not give", "evitare", "deve ser evitado", "geen ... nemen"), so the
answer is contradicted. The medicine the passage does recommend stays supported or unsure."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context, the recommended medicine's answer, the advised-against one's)
ADVISED = [
    (
        "en",
        "For a headache while on warfarin, use paracetamol. Avoid ibuprofen, as it raises "
        "the bleeding risk.",
        "While on warfarin, paracetamol is the one to use for a headache.",
        "While on warfarin, ibuprofen is the one to use for a headache.",
    ),
    (
        "de",
        "Bei Sodbrennen in der Schwangerschaft empfehlen wir Gaviscon. Omeprazol sollten Sie "
        "ohne ärztlichen Rat vermeiden.",
        "Gegen Sodbrennen in der Schwangerschaft nehmen Sie am besten Gaviscon.",
        "Gegen Sodbrennen in der Schwangerschaft nehmen Sie am besten Omeprazol.",
    ),
    (
        "fr",
        "Pendant l'allaitement, prenez du paracétamol en cas de douleur. Évitez l'aspirine.",
        "Pendant l'allaitement, en cas de douleur, on vous conseille le paracétamol.",
        "Pendant l'allaitement, en cas de douleur, on vous conseille l'aspirine.",
    ),
    (
        "es",
        "Para la fiebre del niño use paracetamol. No le dé aspirina.",
        "Para la fiebre del niño, lo indicado es el paracetamol.",
        "Para la fiebre del niño, lo indicado es la aspirina.",
    ),
    (
        "it",
        "Per il mal di denti in gravidanza si usa il paracetamolo. Da evitare l'ibuprofene, "
        "soprattutto nel terzo trimestre.",
        "Per il mal di denti in gravidanza conviene prendere il paracetamolo.",
        "Per il mal di denti in gravidanza conviene prendere l'ibuprofene.",
    ),
    (
        "pt",
        "Para a dor de cabeça pode tomar paracetamol. O ibuprofeno deve ser evitado durante a "
        "gravidez.",
        "Para a dor de cabeça, o indicado é o paracetamol.",
        "Para a dor de cabeça, o indicado é o ibuprofeno.",
    ),
    (
        "nl",
        "Gebruik bij koorts paracetamol. Neem geen ibuprofen als u bloedverdunners gebruikt.",
        "Bij koorts kunt u het beste paracetamol nemen.",
        "Bij koorts kunt u het beste ibuprofen nemen.",
    ),
]


@pytest.mark.parametrize(("language", "context", "recommended", "advised_against"), ADVISED)
def test_a_medicine_advised_against_is_not_recommended(
    language: str, context: str, recommended: str, advised_against: str
) -> None:
    kept, caught = verified(language, [recommended, advised_against], context)
    assert kept is not Support.CONTRADICTED, recommended
    assert caught is Support.CONTRADICTED, advised_against


def test_denying_the_advised_against_medicine_is_not_contradicted() -> None:
    """ "Do not take ibuprofen" agrees with "Avoid ibuprofen": the rule reads affirmations only."""
    context = "For a headache while on warfarin, use paracetamol. Avoid ibuprofen."
    (found,) = verified("en", ["While on warfarin, do not take ibuprofen."], context)
    assert found is not Support.CONTRADICTED


def test_a_medicine_the_passage_also_recommends_is_left_alone() -> None:
    """Named once where it is denied and once where it is given, the medicine is no case."""
    context = "Do not take ibuprofen on an empty stomach. Take ibuprofen with food for period pain."
    (found,) = verified("en", ["Ibuprofen can be taken for period pain."], context)
    assert found is not Support.CONTRADICTED


def test_a_use_scoped_otherwise_is_left_alone() -> None:
    """ "Contraindicated in the third trimester" does not settle "safe in the first two
    trimesters": an amount or ordinal the passage's denial lacks leaves the statement to the
    other checks (unsure, not contradicted)."""
    context = (
        "Naproxen is contraindicated in the third trimester of pregnancy. Paracetamol is the "
        "first choice for pain relief during pregnancy."
    )
    (found,) = verified("en", ["Naproxen is safe in the first two trimesters."], context)
    assert found is not Support.CONTRADICTED
