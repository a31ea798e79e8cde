"""Counts of things whose first words differ: "12 paracetamol tablets" against "8 tablets of
paracetamol" count one thing, and so do a compound and its head ("Ibuprofentabletten" /
"Tabletten Ibuprofen")."""

from __future__ import annotations

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.values import Value, extract
from guardrail.lang.context import reading
from guardrail.scoring import MetaRAG

FLAGGED = 0.5
LIMIT = "Adults should not exceed 8 tablets of paracetamol in 24 hours."


def _score(answer: str, context: str) -> float:
    question = "How many tablets can an adult take in a day?"
    return MetaRAG(LocalJudge()).score_sync(question, answer, [context]).score


def _count(text: str) -> Value:
    (value,) = [v for v in extract(text) if v.kind == "quantity" and v.amount != 1440.0]
    return value


def test_another_count_of_the_same_thing_named_in_another_order_is_flagged() -> None:
    assert _score("An adult can take up to 12 paracetamol tablets in 24 hours.", LIMIT) >= 0.8


def test_the_same_count_named_in_another_order_passes() -> None:
    answer = "An adult can take no more than 8 paracetamol tablets in 24 hours."
    assert _score(answer, LIMIT) < FLAGGED


def test_counts_of_different_things_do_not_compare() -> None:
    tablets = _count("Take 8 tablets of paracetamol.")
    assert not tablets.comparable(_count("Drink 8 glasses of water."))
    assert tablets.comparable(_count("Take 12 paracetamol tablets."))


def test_a_compound_compares_with_its_head() -> None:
    with reading("de"):
        compound = _count("Nehmen Sie sechs Ibuprofentabletten.")
        assert compound.comparable(_count("Erwachsene dürfen sechs Tabletten Ibuprofen nehmen."))
        assert not compound.comparable(_count("Trinken Sie sechs Gläser Wasser."))


def test_a_rate_word_ends_the_search_for_a_unit() -> None:
    """ "20 vakantiedagen per jaar" counts days each year: "jaar" after "per" is the rate's
    unit, not the amount's (it is no length of 20 years)."""
    for code, text in (
        ("nl", "Je hebt recht op 20 vakantiedagen per jaar."),
        ("de", "Sie haben Anspruch auf 30 Urlaubstage pro Jahr."),
        ("fr", "Vous avez droit à 25 congés par an."),
    ):
        with reading(code):
            found = extract(text)
        assert found, text
        assert all(v.key not in ("months", "years") for v in found), (text, found)
