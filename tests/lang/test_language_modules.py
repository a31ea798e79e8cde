"""Every language module fills the one interface, and the offline judge reads with it."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import extract
from guardrail.lang import OFFLINE_JUDGE_LANGUAGES
from guardrail.lang.context import current_language, reading
from guardrail.lang.registry import MODULES, has_tables, language

DIMENSIONS = {"days", "months", "minutes", "seconds", "metres", "grams", "litres"}
#: Articles that also mean "one": never number words (an article asserts no quantity).
ARTICLES = {"ein", "eine", "einen", "un", "une", "una", "uno", "um", "uma", "een"}


@pytest.mark.parametrize("code", sorted(MODULES))
def test_module_fills_the_interface(code: str) -> None:
    """A module names its code, has negation cues, opposites, the twelve months, the seven
    weekdays, units of known dimensions, and no article among its number words."""
    lang = language(code)
    assert lang is not None and lang.code == code
    assert lang.negations and lang.opposites and lang.numbers
    assert sorted(set(lang.months.values())) == list(range(1, 13))
    assert sorted(set(lang.weekdays.values())) == list(range(7))
    assert {dim for dim, _ in lang.units.values()} <= DIMENSIONS
    assert not ARTICLES & set(lang.numbers)
    assert all(w == w.lower() for w in [*lang.negations, *lang.numbers, *lang.months])


def test_offline_judge_declares_only_languages_it_has_words_for() -> None:
    """The judge's declared languages all have tables, English first."""
    assert LocalJudge.languages == OFFLINE_JUDGE_LANGUAGES
    assert OFFLINE_JUDGE_LANGUAGES[0] == "en"
    assert all(has_tables(code) for code in OFFLINE_JUDGE_LANGUAGES)


def _values(text: str, code: str) -> list[tuple[str, str, float | None]]:
    with reading(code):
        return [(v.kind, v.key, v.amount) for v in extract(text) if v.kind != "name"]


@pytest.mark.parametrize(
    ("code", "words", "digits"),
    [
        ("de", "Die Frist beträgt drei Wochen.", "Die Frist beträgt 21 Tage."),
        ("fr", "Le délai est de trois semaines.", "Le délai est de 21 jours."),
        ("es", "El plazo es de tres semanas.", "El plazo es de 21 días."),
    ],
)
def test_number_words_and_units_normalize_per_language(code: str, words: str, digits: str) -> None:
    """ "three weeks" in words equals "21 days" in digits, in each language's own words."""
    assert _values(words, code) == _values(digits, code) == [("quantity", "days", 21.0)]


def test_one_languages_words_are_not_read_in_another() -> None:
    """Spanish "once" (eleven) is no number in English; German "Mai" is a month only when
    reading German."""
    assert _values("I only went once.", "en") == []
    assert _values("Fui once veces.", "es") == [("quantity", "vece", 11.0)]
    assert _values("Am 3. Mai 2025", "de") == [("date", "day", 503.0), ("year", "year", 2025.0)]


def test_reading_language_is_scoped_to_its_block() -> None:
    """reading() sets the language for its block only; English is the default."""
    assert current_language() == "en"
    with reading("fr"):
        assert current_language() == "fr"
    assert current_language() == "en"


def test_lexicon_per_language_extends_english() -> None:
    """A language's lexicon knows its own negations and opposites and still English's."""
    de = Lexicon.for_language("de")
    assert de.is_negation("nicht") and de.is_negation("not")
    assert "senkt" in de.antonyms["erhöht"]
    assert not Lexicon.for_language("en").is_negation("nicht")
    assert Lexicon.for_language("xx") is Lexicon.for_language("en")


CASES = {
    "de": (
        "Der Antrag muss innerhalb von vierzehn Tagen nach der Ankunft gestellt werden.",
        "Der Antrag muss innerhalb von 14 Tagen nach der Ankunft gestellt werden.",
        "Der Antrag muss innerhalb von dreißig Tagen nach der Ankunft gestellt werden.",
    ),
    "fr": (
        "La demande doit être déposée dans les quatorze jours suivant l'arrivée.",
        "La demande doit être déposée dans les 14 jours suivant l'arrivée.",
        "La demande doit être déposée dans les trente jours suivant l'arrivée.",
    ),
    "es": (
        "La solicitud debe presentarse en los catorce días siguientes a la llegada.",
        "La solicitud debe presentarse en los 14 días siguientes a la llegada.",
        "La solicitud debe presentarse en los treinta días siguientes a la llegada.",
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_offline_judge_reads_a_value_in_the_contexts_language(code: str) -> None:
    """The judge says NO to a changed number written in words, naming both values, and YES
    to the same number in digits, in each language it declares."""
    context, faithful, contradicted = CASES[code]
    judge = LocalJudge()
    no = judge.answer("verify", {"statement": contradicted, "context": context})
    yes = judge.answer("verify", {"statement": faithful, "context": context})
    assert no.startswith("NO") and "context says" in no
    assert yes.startswith("YES")
