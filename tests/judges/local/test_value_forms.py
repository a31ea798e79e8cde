"""Amounts in the forms people write them: thousands grouped by spaces ("3 000 mg",
"15 000 €", as French writes them), one unit and a half after an article ("un mois et demi",
"a month and a half"), and a rate word that is no unit ("quatre-vingts par jour")."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
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
