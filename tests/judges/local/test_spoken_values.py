"""Values said in words the way each language says them: times of day ("a las diez y media",
"um halb elf", "à 14h15"), halves of a unit ("trois jours et demi"), compound numbers and
ranges in words ("de dieciocho a veinticinco años"); and a restatement whose values are said
differently from the passage's is supported by them, while a value that belongs to another
fact of the passage, or a value with nothing around it, is not."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


def _values(language: str, text: str, kind: str) -> list[tuple[str, float | None]]:
    with reading(language):
        return [(v.key, v.amount) for v in extract(text) if v.kind == kind]


@pytest.mark.parametrize(
    ("language", "text", "minutes"),
    [
        ("es", "Le atendemos a las diez y media de la mañana.", 630.0),
        ("es", "La farmacia cierra a las cuatro de la tarde.", 960.0),
        ("fr", "Votre rendez-vous est à 14h15.", 855.0),
        ("fr", "Le guichet ouvre à huit heures et quart.", 495.0),
        ("de", "Der Termin ist um halb elf.", 630.0),
        ("de", "Die Sprechstunde beginnt um 8 Uhr 45.", 525.0),
        ("nl", "Kom morgen om half negen naar de balie.", 510.0),
        ("it", "Lo sportello apre alle sette e mezza.", 450.0),
        ("pt", "A consulta é às dez e meia.", 630.0),
        ("en", "The clinic opens at quarter past nine.", 555.0),
        ("en", "Visiting ends at half past four in the afternoon.", 990.0),
    ],
)
def test_a_time_of_day_said_in_words_is_a_clock_time(
    language: str, text: str, minutes: float
) -> None:
    assert _values(language, text, "time") == [("clock", minutes)]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("fr", "On ne peut pas travailler jusqu'à 10 heures par jour."),
        ("de", "Die Wartezeit beträgt zwei bis drei Stunden."),
        ("es", "La jornada es de las 8 horas diarias."),
        ("nl", "De vergunning geldt een half jaar."),
        ("es", "Se pagan dos y medio por ciento."),
    ],
)
def test_a_length_of_time_is_no_clock_time(language: str, text: str) -> None:
    assert _values(language, text, "time") == []


@pytest.mark.parametrize(
    ("language", "text", "key", "amount"),
    [
        ("fr", "un arrêt de trois jours et demi", "minutes", 3.5 * 1440),
        ("en", "a course of two and a half weeks", "minutes", 17.5 * 1440),
        ("es", "un contrato de dos años y medio", "months", 30.0),
        ("it", "un permesso di due anni e mezzo", "months", 30.0),
        ("fr", "un délai de quatre-vingt-dix jours", "minutes", 90 * 1440.0),
        ("es", "un límite de mil quinientos euros", "", 0.0),
        ("es", "personas de sesenta y nueve años", "months", 69 * 12.0),
        ("nl", "je moet ten minste drie maanden wachten", "months", 3.0),
        ("nl", "na vijfentwintig jaar dienst", "months", 25 * 12.0),
    ],
)
def test_a_quantity_in_words_is_read_whole(
    language: str, text: str, key: str, amount: float
) -> None:
    if key == "":  # an amount of money
        assert _values(language, text, "money") == [("eur", 1500.0)]
        return
    assert _values(language, text, "quantity") == [(key, amount)]


@pytest.mark.parametrize(
    ("language", "text", "amounts"),
    [
        # two numbers joined by "and": neither is "four and six" (ten)
        ("pt", "a consulta marca-se entre as quatro e seis semanas", [40320.0, 60480.0]),
        ("es", "entre cuatro y seis semanas", [40320.0, 60480.0]),
        # a range in words: its near end is in the far end's unit
        ("es", "jóvenes de dieciocho a veinticinco años", [216.0, 300.0]),
        ("de", "etwa neun bis zwölf Stunden Schlaf", [540.0, 720.0]),
    ],
)
def test_two_numbers_in_words_stay_two(language: str, text: str, amounts: list[float]) -> None:
    assert [a for _, a in _values(language, text, "quantity")] == amounts


@pytest.mark.parametrize(
    ("language", "context", "restated"),
    [
        (
            "es",
            "El centro de salud abre sus puertas a las 9:30 de lunes a viernes.",
            "De lunes a viernes el centro de salud abre a las nueve y media.",
        ),
        (
            "nl",
            "Met een voltijdbaan heb je recht op 20 vakantiedagen per jaar.",
            "Wie voltijd werkt, krijgt per jaar twintig dagen vakantie.",
        ),
        (
            "es",
            "El número de horas extraordinarias no podrá superar las 80 al año.",
            "Como mucho se pueden hacer ochenta horas extraordinarias por año.",
        ),
        (
            "fr",
            "Pour un bail résilié le 3 avril, le dépôt de garantie doit être rendu au plus "
            "tard le 3 juin.",
            "Si le bail prend fin le 3 avril, la caution revient au locataire le 3 juin au "
            "plus tard.",
        ),
        (
            "fr",
            "Chaque mois de travail donne droit à 2,5 jours de congé.",
            "Pour chaque mois travaillé, on acquiert deux jours et demi de congés.",
        ),
    ],
)
def test_a_restatement_with_the_values_said_otherwise_is_supported(
    language: str, context: str, restated: str
) -> None:
    assert verified(language, [restated], context) == [Support.SUPPORTED]


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        # a bare count of another thing is no length in the statement's unit (2 weeks)
        (
            "it",
            "Conservare in frigorifero tra 2 e 8 °C. Dopo l'apertura usare entro 4 settimane.",
            "Dopo l'apertura il flacone va usato entro quattordici giorni.",
        ),
        # the time belongs to another fact of the passage
        (
            "en",
            "The post office opens at 08:30 on weekdays. Parcel collection is from 14:00 to 16:00.",
            "You can collect your parcel from half past eight.",
        ),
        # a value with nothing around it says nothing of which fact it belongs to
        (
            "en",
            "Standard transfers made before 11:30pm arrive the same day. Same-day transfers "
            "must be sent by 3:30pm.",
            "Half past eleven at night.",
        ),
        # a name from the passage's other sentence: the fact moved to another party
        (
            "nl",
            "Bij ziekte betaalt je werkgever de eerste twee jaar je loon door. Het UWV betaalt "
            "een uitkering als je geen werkgever meer hebt.",
            "Als je ziek bent, krijg je twee jaar lang je salaris van het UWV.",
        ),
    ],
)
def test_values_from_another_fact_support_nothing(
    language: str, context: str, statement: str
) -> None:
    assert verified(language, [statement], context) != [Support.SUPPORTED]
