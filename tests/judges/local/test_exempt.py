""" "Exempt" says a thing is not required: "Applicants over 65 are exempt from the test" agrees
with "Applicants over 65 do not need to take the test" and disagrees with "Applicants over 65
must take the test" — in every language the offline judge reads ("befreit", "exonéré",
"exento", "esente", "isento", "vrijgesteld"), where a modal of obligation ("müssen", "tienen
que", "têm de", "hoeven", "n'ont pas à") is read against it as English "have to" is.

End to end, a statement whose verb the passage does not hold ("leisten", "pagar") matches the
passage sentence below the coverage at which its polarity is trusted, so the trained model
decides it: those rows check the polarity the verifier reads, the English and Italian ones
the outcome."""

from __future__ import annotations

import pytest

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verify import Support, assess, index_context
from guardrail.lang.context import reading
from tests.verifying import verified

#: (language, context with "exempt", a statement that agrees, one that disagrees)
EXEMPT = [
    (
        "en",
        "Pupils under 16 are exempt from the prescription charge.",
        "Pupils under 16 do not need to pay the prescription charge.",
        "Pupils under 16 need to pay the prescription charge.",
    ),
    (
        "en",
        "Refugees with a travel document are exempted from the visa requirement.",
        "Refugees with a travel document do not need a visa.",
        "Refugees with a travel document need a visa.",
    ),
    (
        "de",
        "Schwangere sind von der Zuzahlung befreit.",
        "Schwangere müssen keine Zuzahlung leisten.",
        "Schwangere müssen die Zuzahlung leisten.",
    ),
    (
        "fr",
        "Les femmes enceintes sont exonérées du ticket modérateur.",
        "Les femmes enceintes n'ont pas à payer le ticket modérateur.",
        "Les femmes enceintes doivent payer le ticket modérateur.",
    ),
    (
        "es",
        "Los pensionistas están exentos del copago farmacéutico.",
        "Los pensionistas no tienen que pagar el copago farmacéutico.",
        "Los pensionistas tienen que pagar el copago farmacéutico.",
    ),
    (
        "it",
        "Le donne in gravidanza sono esenti dal ticket per le analisi.",
        "Le donne in gravidanza non hanno bisogno di pagare il ticket per le analisi.",
        "Le donne in gravidanza devono pagare il ticket per le analisi.",
    ),
    (
        "pt",
        "Os requerentes de asilo estão isentos da taxa moderadora.",
        "Os requerentes de asilo não têm de pagar a taxa moderadora.",
        "Os requerentes de asilo têm de pagar a taxa moderadora.",
    ),
    (
        "nl",
        "Kinderen onder de 18 zijn vrijgesteld van het eigen risico.",
        "Kinderen onder de 18 hoeven het eigen risico niet te betalen.",
        "Kinderen onder de 18 moeten het eigen risico betalen.",
    ),
]


@pytest.mark.parametrize(("language", "context", "agrees", "disagrees"), EXEMPT)
def test_exempt_is_read_as_not_required(
    language: str, context: str, agrees: str, disagrees: str
) -> None:
    with reading(language):
        lex = Lexicon.for_language(language)
        index = index_context(context, lex)
        assert assess(agrees, index, lex).parity == 0, agrees
        assert assess(disagrees, index, lex).parity == 1, disagrees


@pytest.mark.parametrize(
    ("language", "context", "agrees", "disagrees"), [c for c in EXEMPT if c[0] in ("en", "it")]
)
def test_exempt_is_not_required(language: str, context: str, agrees: str, disagrees: str) -> None:
    kept, caught = verified(language, [agrees, disagrees], context)
    assert kept is not Support.CONTRADICTED, agrees
    assert caught is not Support.SUPPORTED, disagrees
