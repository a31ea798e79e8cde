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
    assert _values(words, code) == _values(digits, code) == [("quantity", "minutes", 21 * 1440.0)]


def test_one_languages_words_are_not_read_in_another() -> None:
    """Spanish "once" (eleven) is no number in English; German "Mai" is a month only when
    reading German."""
    assert _values("I only went once.", "en") == []
    assert _values("Fui once veces.", "es") == [("quantity", "time", 11.0)]
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


@pytest.mark.parametrize(
    ("code", "text", "bound"),
    [
        ("en", "Students must not work more than 20 hours a week.", 1),
        ("en", "Students may work at most 20 hours a week.", 1),
        ("en", "Students must work at least 20 hours a week.", -1),
        ("en", "Students may work 20 hours or more per week.", -1),
        ("de", "Studierende dürfen nicht mehr als 20 Stunden pro Woche arbeiten.", 1),
        ("de", "Studierende dürfen höchstens 20 Stunden pro Woche arbeiten.", 1),
        ("de", "Studierende müssen mindestens 20 Stunden pro Woche arbeiten.", -1),
        ("fr", "Les étudiants ne peuvent pas travailler plus de 20 heures par semaine.", 1),
        ("fr", "Les étudiants doivent travailler au moins 20 heures par semaine.", -1),
        ("es", "Los estudiantes no pueden trabajar más de 20 horas semanales.", 1),
        ("es", "Los estudiantes pueden trabajar como máximo 20 horas semanales.", 1),
        ("it", "Gli studenti possono lavorare al massimo 20 ore settimanali.", 1),
        ("pt", "Os estudantes devem trabalhar pelo menos 20 horas por semana.", -1),
        ("nl", "Studenten mogen maximaal 20 uur per week werken.", 1),
        ("nl", "Studenten moeten minstens 20 uur per week werken.", -1),
    ],
)
def test_bounds_on_amounts_are_read_per_language(code: str, text: str, bound: int) -> None:
    """An amount carries the bound its words put on it (+1 at most, -1 at least); a negation
    before a comparative reverses it ("not more than 20" is at most 20)."""
    with reading(code):
        (value,) = [v for v in extract(text) if v.kind == "quantity"]
    assert (value.amount, value.bound) == (1200.0, bound)


def test_opposite_bounds_on_one_amount_are_not_the_same_value() -> None:
    """ "At most 20" and "at least 20" disagree; "at most 20" and "up to 20" agree; an age
    "aged 16 and over" is in years and is not "under 16"."""
    (most,) = extract("at most 20 hours")
    (least,) = extract("at least 20 hours")
    (up_to,) = extract("up to 20 hours")
    assert not most.same(least) and most.same(up_to)
    over = [v for v in extract("People aged 16 and over can apply.") if v.kind == "quantity"]
    under = [v for v in extract("People aged under 16 can apply.") if v.kind == "quantity"]
    assert over[0].key == "months" and over[0].amount == 16 * 12 and over[0].bound == -1
    assert under[0].bound == 1 and not over[0].same(under[0])


LIMITS = {
    "en": (
        "Visitors must not stay more than 90 days in any 180-day period.",
        "Visitors may stay at most 90 days in any 180-day period.",
        "Visitors may stay at least 90 days in any 180-day period.",
    ),
    "de": (
        "Besucher dürfen nicht länger als 90 Tage in einem Zeitraum von 180 Tagen bleiben.",
        "Besucher dürfen höchstens 90 Tage in einem Zeitraum von 180 Tagen bleiben.",
        "Besucher dürfen mindestens 90 Tage in einem Zeitraum von 180 Tagen bleiben.",
    ),
    "es": (
        "Los visitantes no pueden quedarse más de 90 días en un periodo de 180 días.",
        "Los visitantes pueden quedarse como máximo 90 días en un periodo de 180 días.",
        "Los visitantes pueden quedarse al menos 90 días en un periodo de 180 días.",
    ),
}


@pytest.mark.parametrize("code", sorted(LIMITS))
def test_a_limit_restated_is_kept_and_a_reversed_bound_is_caught(code: str) -> None:
    """ "Not more than 90 days" restated as "at most 90 days" is supported; "at least 90
    days" is contradicted."""
    context, faithful, reversed_bound = LIMITS[code]
    judge = LocalJudge()
    assert judge.answer("verify", {"statement": faithful, "context": context}).startswith("YES")
    no = judge.answer("verify", {"statement": reversed_bound, "context": context})
    assert no.startswith("NO")


@pytest.mark.parametrize(
    ("code", "context", "statement"),
    [
        (
            "it",
            "L'aspirina non deve essere assunta dai bambini.",
            "L'aspirina è sicura per i bambini.",
        ),
        ("es", "La aspirina no debe tomarse en niños.", "La aspirina es segura en niños."),
        (
            "nl",
            "Aspirine mag niet worden gebruikt door kinderen.",
            "Aspirine is veilig voor kinderen.",
        ),
    ],
)
def test_a_safety_verdict_against_a_prohibition_is_contradicted(
    code: str, context: str, statement: str
) -> None:
    """ "Safe" against "must not be taken" is a contradiction: the verbs of taking a medicine
    sit on the acceptability scale, and the context negates them."""
    reply = LocalJudge().answer("verify", {"statement": statement, "context": context})
    assert reply.startswith("NO"), reply


def test_an_english_negation_word_is_ordinary_in_portuguese() -> None:
    """Portuguese "no" ("in the") is no negation when reading Portuguese."""
    assert Lexicon.for_language("en").is_negation("no")
    assert not Lexicon.for_language("pt").is_negation("no")
    assert Lexicon.for_language("es").is_negation("no")


@pytest.mark.parametrize(
    ("context", "statement"),
    [
        (
            "Mieter dürfen in den Wintermonaten nicht gekündigt werden.",
            "Mieter dürfen in den Wintermonaten jederzeit gekündigt werden.",
        ),
        (
            "Les locataires ne peuvent pas être expulsés pendant l'hiver.",
            "Les locataires peuvent être expulsés à tout moment pendant l'hiver.",
        ),
        (
            "Los inquilinos no pueden ser desalojados durante el invierno.",
            "Los inquilinos pueden ser desalojados en cualquier momento durante el invierno.",
        ),
        (
            "Huurders mogen in de winter niet worden uitgezet.",
            "Huurders mogen in de winter op elk moment worden uitgezet.",
        ),
    ],
)
def test_a_dropped_negation_with_at_any_time_is_contradicted(context: str, statement: str) -> None:
    """ "Can be evicted at any time" against "cannot be evicted": the adverb only strengthens
    the claim, so the dropped negation still decides."""
    reply = LocalJudge().answer("verify", {"statement": statement, "context": context})
    assert reply.startswith("NO"), reply


def test_english_at_any_time_does_not_hide_a_dropped_negation() -> None:
    """The English kind too: "can be evicted at any time" against "cannot be evicted" is
    contradicted, and "open at any time on weekdays" restates "open on weekdays"."""
    judge = LocalJudge()
    no = judge.answer(
        "verify",
        {
            "statement": "Tenants can be evicted at any time during the winter months.",
            "context": "Tenants cannot be evicted during the winter months.",
        },
    )
    yes = judge.answer(
        "verify",
        {
            "statement": "The shop is open at any time on weekdays.",
            "context": "The shop is open on weekdays.",
        },
    )
    assert no.startswith("NO") and yes.startswith("YES")
