""" "The end of June" is the last day of June: it matches "30 June" and conflicts with another
month's end or another day, in every language the offline judge reads."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


@pytest.mark.parametrize(
    ("language", "text", "dates"),
    [
        ("en", "Apply by the end of June 2021.", [630.0]),
        ("en", "The last day of April is the cut-off.", [430.0]),
        ("de", "Der Antrag muss bis Ende Juni gestellt werden.", [630.0]),
        ("fr", "La demande doit être faite avant la fin juin.", [630.0]),
        ("es", "Hay que presentarlo antes de finales de junio.", [630.0]),
        ("it", "La domanda va presentata entro la fine di giugno.", [630.0]),
        ("pt", "O pedido deve ser entregue até ao final de junho.", [630.0]),
        ("nl", "De aanvraag moet eind juni binnen zijn.", [630.0]),
    ],
)
def test_the_end_of_a_month_is_its_last_day(language: str, text: str, dates: list[float]) -> None:
    with reading(language):
        found = [v.amount for v in extract(text) if v.kind == "date"]
    assert found == dates


def test_a_february_end_without_a_year_stays_a_month() -> None:
    with reading("en"):
        found = [
            (v.key, v.amount) for v in extract("Pay by the end of February.") if v.kind == "date"
        ]
    assert found == [("month", 2.0)]


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "en",
            "The deadline for the main scheme was 30 June 2021. Late applications need a reason.",
            "The deadline for the main scheme was the end of June 2021.",
            "The deadline for the main scheme was the end of May 2021.",
        ),
        (
            "de",
            "Die Steuererklärung muss bis zum 31. Juli abgegeben werden.",
            "Die Steuererklärung muss bis Ende Juli abgegeben werden.",
            "Die Steuererklärung muss bis Ende August abgegeben werden.",
        ),
    ],
)
def test_a_month_end_is_compared_with_the_day(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is Support.SUPPORTED, faithful
    assert caught is Support.CONTRADICTED, wrong
