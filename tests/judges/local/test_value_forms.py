"""Amounts in the forms people write them: thousands grouped by spaces ("3 000 mg",
"15 000 €", as French writes them), one unit and a half after an article ("un mois et demi",
"a month and a half"), and a rate word that is no unit ("quatre-vingts par jour")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract, rate_periods
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


@pytest.mark.parametrize(
    ("code", "text", "kind", "amount"),
    [
        ("fr", "Ne dépassez pas 3 000 mg par jour.", "quantity", 3.0),  # grams
        ("fr", "Le plafond est de 15 000 € par an.", "money", 15000.0),
        ("fr", "Le plafond est de 15\u202f000 € par an.", "money", 15000.0),
        ("fr", "Revenez dans un mois et demi.", "quantity", 1.5),  # months
        ("it", "Il controllo si fa dopo un mese e mezzo.", "quantity", 1.5),
        ("es", "La cita será dentro de un mes y medio.", "quantity", 1.5),
        ("pt", "A consulta é daqui a um mês e meio.", "quantity", 1.5),
        ("en", "Come back in a month and a half.", "quantity", 1.5),
    ],
)
def test_an_amount_is_read_whole(code: str, text: str, kind: str, amount: float) -> None:
    with reading(code):
        found = [v for v in extract(text) if v.kind != "name"]  # "Revenez": no common-word test
    assert [(v.kind, v.amount) for v in found] == [(kind, amount)], found


def test_a_rate_word_is_no_unit() -> None:
    with reading("fr"):
        found = extract("Vous touchez quatre-vingts par jour.")
    assert [v.key for v in found] == [""], found


def test_a_spaced_thousand_compares_as_one_amount() -> None:
    context = "Ne dépassez pas 3 g de paracétamol par jour sans avis médical."
    same, other = verified(
        "fr",
        [
            "Sans avis médical, ne dépassez pas 3 000 mg de paracétamol par jour.",
            "Sans avis médical, ne dépassez pas 4 000 mg de paracétamol par jour.",
        ],
        context,
    )
    assert same is not Support.CONTRADICTED
    assert other is not Support.SUPPORTED


def test_a_bound_word_opposite_denies_nothing() -> None:
    """ "au moins 3 000 euros" against "10 000 euros ou plus": "moins" and "plus" are the
    amounts' bounds, not a denial, so the other amount stays a conflict."""
    context = "Les voyageurs doivent déclarer les sommes en espèces de 10 000 euros ou plus."
    (found,) = verified(
        "fr", ["Il faut déclarer toute somme en espèces d'au moins 3 000 euros."], context
    )
    assert found is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("Ten in the morning is the latest you can arrive.", 600),
        ("The ward is open until eleven at night.", 23 * 60),
        ("Come back at two in the afternoon.", 14 * 60),
    ],
)
def test_an_hour_in_words_with_its_part_of_the_day_is_a_time(text: str, minutes: int) -> None:
    times = [v for v in extract(text) if v.kind == "time"]
    assert [v.amount for v in times] == [minutes]


@pytest.mark.parametrize(
    "text", ["Take two in the morning and one at night.", "Take one in the morning."]
)
def test_a_count_of_doses_with_its_part_of_the_day_is_no_time(text: str) -> None:
    assert not [v for v in extract(text) if v.kind == "time"]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Take 2 tablets per day."),
        ("es", "No tome más de 6 cápsulas al día."),
        ("fr", "Prenez 3 comprimés par jour."),
        ("de", "Höchstens 3 Tabletten pro Tag."),
        ("pt", "Tome 4 comprimidos por dia."),
        ("it", "Prenda 3 compresse al giorno."),
    ],
)
def test_a_rates_period_is_one_of_its_unit(language: str, text: str) -> None:
    """ "per day" / "al día" is a period of one day, as "a day" and "un día" are, so a
    statement's "in one day" finds it in the passage; it is no value of its own."""
    with reading(language):
        assert [(v.key, v.amount) for v in rate_periods(text)] == [("minutes", 1440.0)]
        assert all(v.key != "minutes" for v in extract(text))


def test_within_one_day_matches_a_rate_per_day() -> None:
    context = (
        "Adultos: 1 cápsula de metamizol de 575 mg cada 6 a 8 horas, sin superar las 6"
        " cápsulas al día."
    )
    right, wrong = verified(
        "es",
        [
            "No se tome más de seis cápsulas en un día.",
            "No se tome más de ocho cápsulas en un día.",
        ],
        context,
    )
    assert right is not Support.CONTRADICTED
    assert wrong is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("code", "text", "minutes"),
    [
        ("de", "Der Kurs beginnt um halb sieben abends.", 18 * 60 + 30),
        ("de", "Der Kurs beginnt um halb sieben.", 6 * 60 + 30),
        ("nl", "De les begint om half acht 's avonds.", 19 * 60 + 30),
    ],
)
def test_a_half_hour_before_its_hour_takes_the_part_of_the_day(
    code: str, text: str, minutes: int
) -> None:
    with reading(code):
        times = [v for v in extract(text) if v.kind == "time"]
    assert [v.amount for v in times] == [minutes]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("nl", "Voor moeders van 16 tot en met 23 jaar."),
        ("it", "Per le mamme dai 16 ai 23 anni."),
        ("it", "Per le mamme tra i 16 e i 23 anni."),
        ("pt", "Para mães dos 16 aos 23 anos."),
        ("es", "Para madres entre los 16 y los 23 años."),
        ("en", "For mothers from 16 to 23 years."),
    ],
)
def test_a_ranges_near_end_takes_the_far_ends_unit(code: str, text: str) -> None:
    """ "van 16 tot en met 23 jaar": 16 is an age as 23 is, whatever articles the range
    word brings before the far end."""
    with reading(code):
        ages = [v.amount for v in extract(text) if v.kind == "quantity"]
    assert ages == [16 * 12, 23 * 12]


def test_from_the_twentieth_week_is_a_lower_bound() -> None:
    context = "O Ibufen deve ser evitado a partir das 20 semanas de gravidez."
    inside, outside = verified(
        "pt",
        [
            "Com 24 semanas de gravidez o Ibufen deve ser evitado.",
            "Com 16 semanas de gravidez o Ibufen deve ser evitado.",
        ],
        context,
    )
    assert inside is not Support.CONTRADICTED
    assert outside is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("code", "text", "amount"),
    [
        ("en", "Sunday hours are paid at double the normal rate.", 2.0),
        ("en", "Sunday hours are paid at twice the normal rate.", 2.0),
        ("en", "Overtime is paid at time and a half.", 1.5),
        ("en", "Overtime is paid at one and a half times the normal rate.", 1.5),
        ("en", "Overtime is paid at 1.5 times the normal rate.", 1.5),
        ("fr", "Les heures du dimanche sont payées le double du tarif.", 2.0),
        ("fr", "Les heures du dimanche sont payées deux fois le tarif.", 2.0),
        ("es", "Las horas del domingo se pagan al doble del precio.", 2.0),
    ],
)
def test_a_multiple_is_one_amount_whatever_its_words(code: str, text: str, amount: float) -> None:
    with reading(code):
        found = [v for v in extract(text) if v.kind == "quantity"]
    assert [(v.key, v.amount) for v in found] == [("time", amount)]


def test_twice_a_day_is_no_multiple() -> None:
    assert not [v for v in extract("Take it twice a day.") if v.key == "time"]
