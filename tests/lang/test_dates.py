"""A day and its month written the Romance way ("1 de marzo", "1er juin", "1° marzo") are one
date, so a month swapped in an answer is a contradiction and the same date restated is not."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.values import extract
from guardrail.lang.context import reading
from guardrail.scoring import MetaRAG

FLAGGED = 0.5


@pytest.mark.parametrize(
    ("code", "text", "day"),
    [
        ("es", "El plazo termina el 1 de marzo de 2025.", 301.0),
        ("fr", "Les inscriptions ouvrent le 1er juin.", 601.0),
        ("it", "Le iscrizioni aprono il 1° marzo.", 301.0),
        ("pt", "As candidaturas abrem a 1 de junho.", 601.0),
    ],
)
def test_a_day_and_month_joined_by_a_word_or_a_mark_is_a_date(
    code: str, text: str, day: float
) -> None:
    with reading(code):
        dates = [v.amount for v in extract(text) if v.kind == "date"]
    assert dates == [day]


@pytest.mark.parametrize(
    ("question", "context", "faithful", "swapped"),
    [
        (
            "¿Cuándo termina el plazo de solicitud?",
            "El plazo de solicitud de la beca termina el 15 de marzo.",
            "La solicitud de la beca se puede presentar hasta el 15 de marzo.",
            "El plazo de solicitud de la beca termina el 15 de junio.",
        ),
        (
            "Quand ouvrent les inscriptions ?",
            "Les inscriptions à la crèche municipale ouvrent le 1er septembre.",
            "Le 1er septembre, les inscriptions à la crèche municipale ouvrent.",
            "Les inscriptions à la crèche municipale ouvrent le 1er octobre.",
        ),
    ],
)
def test_a_swapped_month_is_flagged(
    question: str, context: str, faithful: str, swapped: str
) -> None:
    scorer = MetaRAG(LocalJudge())
    assert scorer.score_sync(question, swapped, [context]).score >= FLAGGED
    assert scorer.score_sync(question, faithful, [context]).score < FLAGGED
