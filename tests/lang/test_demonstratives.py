"""Demonstratives ("este", "questa", "isso", "jener") are function words in every language:
a statement's "this medicine" asks the passage for the medicine, not for the word "this"."""

from __future__ import annotations

import pytest

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified

DEMONSTRATIVES = {
    "en": "this that these those",
    "fr": "ce cet cette ces celui celle ceux celles",
    "es": "este esta estos estas ese esa esos esas aquel aquella esto eso",
    "pt": "este esta estes estas esse essa esses essas isto isso aquele aquela",
    "it": "questo questa questi queste quello quella quelli quelle",
    "de": "dieser diese dieses diesem diesen jener jene jenes",
    "nl": "deze dit die dat zulke",
}


@pytest.mark.parametrize(("language", "words"), sorted(DEMONSTRATIVES.items()))
def test_demonstratives_are_no_content_words(language: str, words: str) -> None:
    with reading(language):
        lex = Lexicon.for_language(language)
        assert [w for w in words.split() if lex.is_content(w)] == []


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "es",
            "No hace falta receta para este medicamento.",
            "Necesitas receta para este medicamento.",
        ),
        (
            "it",
            "Questo farmaco non deve essere assunto durante l'allattamento.",
            "Questo farmaco può essere assunto senza rischi durante l'allattamento.",
        ),
    ],
)
def test_a_denied_rule_restated_as_allowed_is_not_supported(
    language: str, context: str, statement: str
) -> None:
    (found,) = verified(language, [statement], context)
    assert found is not Support.SUPPORTED
