""" "Without waiting" ("sin tener que esperar", "zonder te wachten", "no need to wait") says
*immediately*: against a context that sets a waiting time it is contradicted in every language,
and its negation denies the wait, not the statement. A wait denied before a length of time
("do not wait more than 3 days") is a deadline, not "immediately"."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context with a waiting time, statement that denies the wait)
AGAINST_A_WAIT = [
    (
        "en",
        "After the blood test, wait 30 minutes before driving.",
        "After the blood test you can drive, with no need to wait.",
    ),
    (
        "en",
        "After the blood test, wait 30 minutes before driving.",
        "After the blood test you can drive straight away, without waiting.",
    ),
    (
        "es",
        "Tras la extracción, espere 30 minutos antes de conducir.",
        "Tras la extracción puede conducir enseguida, sin tener que esperar.",
    ),
    (
        "es",
        "Tras la extracción, espere 30 minutos antes de conducir.",
        "Tras la extracción puede conducir sin esperar.",
    ),
    (
        "it",
        "Dopo il prelievo è necessario attendere 30 minuti prima di guidare.",
        "Dopo il prelievo si può guidare subito, senza aspettare.",
    ),
    (
        "nl",
        "Wacht na de bloedafname minstens 30 minuten voordat u autorijdt.",
        "Na de bloedafname mag je meteen autorijden, zonder te wachten.",
    ),
    (
        "fr",
        "Après la prise de sang, attendez 30 minutes avant de conduire.",
        "Après la prise de sang, vous pouvez conduire tout de suite, sans attendre.",
    ),
    (
        "de",
        "Nach der Blutabnahme warten Sie 30 Minuten, bevor Sie Auto fahren.",
        "Nach der Blutabnahme dürfen Sie sofort Auto fahren, ohne zu warten.",
    ),
    (
        "pt",
        "Após a colheita, espere 30 minutos antes de conduzir.",
        "Após a colheita pode conduzir sem esperar.",
    ),
]

#: (language, context that says "immediately", statement that denies the wait)
WITH_IMMEDIATELY = [
    (
        "en",
        "You can start the new job immediately; there is no waiting period for EU citizens.",
        "EU citizens can start the new job straight away, without waiting.",
    ),
    (
        "fr",
        "Vous pouvez reprendre le travail immédiatement, sans délai de carence.",
        "Vous pouvez reprendre le travail tout de suite, sans attendre.",
    ),
    (
        "es",
        "Puede empezar a trabajar de inmediato, sin periodo de espera.",
        "Puede empezar a trabajar enseguida, sin tener que esperar.",
    ),
    (
        "it",
        "Dopo la visita può tornare a casa subito.",
        "Dopo la visita può tornare a casa senza aspettare.",
    ),
    (
        "pt",
        "Depois da consulta pode ir para casa imediatamente.",
        "Depois da consulta pode ir para casa sem esperar.",
    ),
]


@pytest.mark.parametrize(("lang", "context", "statement"), AGAINST_A_WAIT)
def test_a_denied_wait_is_contradicted_by_a_waiting_time(
    lang: str, context: str, statement: str
) -> None:
    assert verified(lang, [statement], context) == [Support.CONTRADICTED]


@pytest.mark.parametrize(("lang", "context", "statement"), WITH_IMMEDIATELY)
def test_a_denied_wait_agrees_with_immediately(lang: str, context: str, statement: str) -> None:
    assert verified(lang, [statement], context) == [Support.SUPPORTED]


def test_the_context_denying_the_wait_contradicts_a_waiting_time() -> None:
    context = "Tras la extracción puede conducir sin esperar."
    statement = "Tras la extracción debe esperar 30 minutos antes de conducir."
    assert verified("es", [statement], context) == [Support.CONTRADICTED]


def test_a_wait_denied_before_a_length_of_time_is_a_deadline() -> None:
    context = "Do not wait more than 3 days before calling your GP."
    assert verified("en", [context], context) == [Support.SUPPORTED]
    assert verified("en", ["Call your GP within 3 days."], context) == [Support.SUPPORTED]
