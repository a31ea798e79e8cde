"""What the verifier reads of single words in each language.

A number written as one word ("duecentocinquanta", "vierundzwanzig", "zevenentwintig",
"quarante-huit") is a number to the word matcher too, not only to the value reader: before,
it was a content word the passage "did not mention" when the passage wrote "250", which raised
a faithful restatement's unsupported risk. Function words ("hai", "numa", "avez", "wer", "te")
carry no claim."""

from __future__ import annotations

import pytest

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verify import word_reading


@pytest.mark.parametrize(
    ("language", "word", "number"),
    [
        ("it", "duecentocinquanta", 250.0),
        ("it", "quarantotto", 48.0),
        ("de", "vierundzwanzig", 24.0),
        ("nl", "zevenentwintig", 27.0),
        ("es", "veinticinco", 25.0),
        ("fr", "quarante-huit", 48.0),
        ("fr", "soixante-dix", 70.0),
    ],
)
def test_a_number_written_as_one_word(language: str, word: str, number: float) -> None:
    assert word_reading(word, Lexicon.for_language(language)).number == number


@pytest.mark.parametrize(
    ("language", "word"),
    [("fr", "peut-être"), ("it", "settimana"), ("de", "Arbeitgeber"), ("nl", "vakantiedagen")],
)
def test_an_ordinary_word_is_no_number(language: str, word: str) -> None:
    assert word_reading(word.lower(), Lexicon.for_language(language)).number is None


@pytest.mark.parametrize(
    ("language", "word"),
    [
        ("it", "hai"),
        ("it", "dagli"),
        ("it", "cioè"),
        ("pt", "numa"),
        ("pt", "uma"),
        ("pt", "pelos"),
        ("fr", "avez"),
        ("fr", "chaque"),
        ("de", "wer"),
        ("de", "zwar"),
        ("nl", "te"),
    ],
)
def test_a_function_word_carries_no_claim(language: str, word: str) -> None:
    assert not word_reading(word, Lexicon.for_language(language)).content
