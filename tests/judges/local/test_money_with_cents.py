"""An amount of money said in words with its cents ("six euros quatre-vingts", "due euro e
cinquanta", "vijf euro tien", "five pounds fifty") is that amount with its cents: it agrees
with "6,80 €" and disagrees with "6,30 €"."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.lang.context import reading
from tests.verifying import assert_told_apart

#: (language, words, the amount)
AMOUNTS = [
    ("fr", "Vous touchez six euros quatre-vingts par jour.", 6.80),
    ("it", "Ti spettano due euro e cinquanta al giorno.", 2.50),
    ("it", "Costa tre euro e cinquanta centesimi.", 3.50),
    ("nl", "U betaalt vijf euro tien per uur.", 5.10),
    ("es", "Cuesta cuatro euros con veinte.", 4.20),
    ("de", "Das kostet drei Euro fünfzig.", 3.50),
    ("en", "It costs five pounds fifty.", 5.50),
    ("pt", "Custa dois euros e trinta cêntimos.", 2.30),
]


@pytest.mark.parametrize(("language", "text", "amount"), AMOUNTS)
def test_cents_after_the_currency(language: str, text: str, amount: float) -> None:
    with reading(language):
        money = [v for v in extract(text) if v.kind == "money"]
    assert [round(v.amount or 0.0, 2) for v in money] == [amount]


def test_a_count_after_the_currency_is_no_cents() -> None:
    """ "10 euros 30 days" is ten euros, then thirty days."""
    with reading("en"):
        found = extract("You pay ten euros 30 days later.")
    assert [(v.kind, v.amount) for v in found if v.kind == "money"] == [("money", 10.0)]


#: (language, context, the amount in words, another amount in words)
TOLD_APART = [
    (
        "fr",
        "L'allocation est de 6,80 € par jour pour une personne seule.",
        "Seul, vous touchez six euros quatre-vingts par jour.",
        "Seul, vous touchez six euros trente par jour.",
    ),
    (
        "it",
        "Il pocket money è di 2,50 euro al giorno.",
        "Il pocket money è di due euro e cinquanta al giorno.",
        "Il pocket money è di due euro e venti al giorno.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "other"), TOLD_APART)
def test_cents_in_words_are_compared(language: str, context: str, same: str, other: str) -> None:
    assert_told_apart(language, context, same, other)
