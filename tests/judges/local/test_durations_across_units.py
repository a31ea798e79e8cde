"""A duration is one amount whatever unit it is said in: "48 hours" is two days, "un año" is
twelve months, "ein halbes Jahr" six months; a range's near end takes the far end's unit
("12 bis 18 Monate")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


def _durations(language: str, text: str) -> list[tuple[str, float | None]]:
    with reading(language):
        return [(v.key, v.amount) for v in extract(text) if v.kind == "quantity"]


@pytest.mark.parametrize(
    ("language", "one", "other"),
    [
        ("en", "Wait 48 hours.", "Wait two days."),
        ("de", "Warten Sie 48 Stunden.", "Warten Sie zwei Tage."),
        ("es", "Espere seis meses.", "Espere medio año."),
        ("es", "Espere doce meses.", "Espere un año."),
        ("fr", "Attendez une semaine.", "Attendez sept jours."),
        ("it", "Aspetti mezz'ora.", "Aspetti trenta minuti."),
        ("pt", "Espere um mês.", "Espere 1 mês."),
        ("nl", "Wacht een half jaar.", "Wacht zes maanden."),
        ("de", "Das dauert ein halbes Jahr.", "Das dauert sechs Monate."),
    ],
)
def test_one_duration_in_two_units_is_one_amount(language: str, one: str, other: str) -> None:
    assert _durations(language, one) == _durations(language, other) != []


def test_a_range_gives_its_near_end_the_far_ends_unit() -> None:
    assert _durations("de", "Die Bearbeitung dauert etwa 12 bis 18 Monate.") == [
        ("months", 12.0),
        ("months", 18.0),
    ]


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "de",
            "Nach der letzten Dosis dürfen Sie 48 Stunden lang keinen Alkohol trinken.",
            "Nach der letzten Dosis dürfen Sie zwei Tage lang keinen Alkohol trinken.",
            "Nach der letzten Dosis dürfen Sie drei Tage lang keinen Alkohol trinken.",
        ),
        (
            "es",
            "Podrá trabajar cuando hayan pasado seis meses desde la solicitud.",
            "Podrá trabajar cuando haya pasado medio año desde la solicitud.",
            "Podrá trabajar cuando haya pasado un año desde la solicitud.",
        ),
        (
            "en",
            "Do not drink alcohol for 48 hours after the last dose.",
            "Do not drink alcohol for two days after the last dose.",
            "Do not drink alcohol for three days after the last dose.",
        ),
    ],
)
def test_a_duration_in_another_unit_is_compared(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is Support.CONTRADICTED, wrong


def test_a_bound_the_other_way_is_not_supported_by_matching_units() -> None:
    # "a day" is "24 hours", but "more than 8" is not "not more than 8"
    context = "Do not take more than 8 tablets in 24 hours."
    kept, flipped = verified(
        "en",
        ["You can take no more than 8 in a day.", "You can take more than 8 in a day."],
        context,
    )
    assert kept is Support.SUPPORTED
    assert flipped is not Support.SUPPORTED


def test_a_value_inside_the_passages_bound_is_no_conflict() -> None:
    context = (
        "The fee is £719 for a visa of up to 3 years and £1,420 for a visa of more than 3 years."
    )
    inside, outside = verified(
        "en",
        ["The fee for a 5 year visa is £1,420.", "The fee for a 2 year visa is £1,420."],
        context,
    )
    assert inside is not Support.CONTRADICTED
    assert outside is not Support.SUPPORTED


@pytest.mark.parametrize(
    ("language", "elided", "plain"),
    [
        ("fr", "dans un délai d'un mois", "dans un délai de 1 mois"),
        ("it", "entro un'ora dalla chiamata", "entro sessanta minuti dalla chiamata"),
        ("fr", "au bout d'une semaine", "au bout de sept jours"),
    ],
)
def test_an_article_after_an_elided_word_counts_one_unit(
    language: str, elided: str, plain: str
) -> None:
    """ "d'un mois" is "de un mois": the apostrophe hides the article, not the month."""
    assert _durations(language, elided) == _durations(language, plain) != []


def test_an_elided_word_before_a_noun_is_no_value() -> None:
    assert _durations("fr", "l'invitation arrive par la poste") == []
    assert _durations("it", "dell'ospedale") == []


@pytest.mark.parametrize(
    ("language", "words", "sign"),
    [
        ("de", "acht Prozent", "8 %"),
        ("fr", "huit pour cent", "8 %"),
        ("es", "ocho por ciento", "8 %"),
        ("it", "otto per cento", "8%"),
        ("pt", "oito por cento", "8%"),
        ("nl", "acht procent", "8%"),
    ],
)
def test_a_share_in_words_is_a_share(language: str, words: str, sign: str) -> None:
    """Dutch "acht procent" is 8 %, not eight of something called "procent"."""
    with reading(language):
        said = [(v.kind, v.amount) for v in extract(words)]
        given = [(v.kind, v.amount) for v in extract(sign)]
    assert said == given == [("percent", 8.0)]


def test_a_stressed_one_is_one() -> None:
    """Dutch "één" (stressed "een") is the number one, never an article."""
    assert _durations("nl", "tot maximaal één jaar lang") == _durations("nl", "12 maanden") != []


@pytest.mark.parametrize(
    ("language", "words", "figures"),
    [
        ("it", "il tetto è di duecentocinquanta ore", "il tetto è di 250 ore"),
        ("de", "Sie bekommen vierundzwanzig Tage", "Sie bekommen 24 Tage"),
        ("de", "zweihundertfünfzig Euro", "250 Euro"),
    ],
)
def test_a_number_written_as_one_word_is_read(language: str, words: str, figures: str) -> None:
    """Italian and German write a number in words as one word ("duecentocinquanta",
    "vierundzwanzig"): it is the number."""
    with reading(language):
        said = [(v.kind, v.key, v.amount) for v in extract(words)]
        given = [(v.kind, v.key, v.amount) for v in extract(figures)]
    assert said == given != []
