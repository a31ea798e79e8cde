"""Antonym mutations remove a negation in the answer's own language (never with an English
word), and limits phrased with a verb of exceeding are upper bounds once negated."""

from __future__ import annotations

import pytest

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.values import extract
from guardrail.lang.context import reading


@pytest.mark.parametrize(
    ("code", "negated", "affirmed"),
    [
        ("es", "Sin receta, no tome más de 1200 mg.", "Sin receta, tome más de 1200 mg."),
        ("fr", "Ne prenez pas plus de quatre grammes.", "Prenez plus de quatre grammes."),
        ("fr", "Il n'est pas possible de travailler.", "Il est possible de travailler."),
        ("de", "Sie bekommen keine Arbeitserlaubnis.", "Sie bekommen eine Arbeitserlaubnis."),
        ("it", "Non prendete più di sei compresse.", "Prendete più di sei compresse."),
        ("nl", "Asielzoekers mogen niet werken.", "Asielzoekers mogen werken."),
    ],
)  # fmt: skip
def test_a_negation_is_removed_in_its_own_language(code: str, negated: str, affirmed: str) -> None:
    with reading(code):
        first = Mutator(Lexicon.for_language(code)).antonyms(negated, 1)[0]
    assert first == affirmed


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("es", "Los adultos no deben superar los 1200 miligramos al día."),
        ("fr", "Un adulte ne doit pas dépasser quatre grammes par jour."),
        ("it", "Gli adulti non devono superare le sei compresse al giorno."),
        ("pt", "Os adultos não devem ultrapassar quatro gramas por dia."),
    ],
)
def test_not_exceeding_an_amount_is_an_upper_bound(code: str, text: str) -> None:
    with reading(code):
        (value,) = [v for v in extract(text) if v.kind == "quantity"]
    assert value.bound == 1


def test_a_count_per_day_counts_its_things_not_days() -> None:
    (value,) = [v for v in extract("Take 6 tablets a day.") if v.kind == "quantity"]
    assert value.key == "tablet"
    with reading("de"):
        (value,) = [
            v for v in extract("Nehmen Sie sechs Tabletten am Tag.") if v.kind == "quantity"
        ]
    assert value.key == "tabletten"
