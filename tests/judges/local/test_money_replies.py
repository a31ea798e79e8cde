"""A reply that gives an amount of money in other words than the passage ("Five hundred
pounds." for "£500", "twelve euros fifty" aside) is read as that amount: the faithful reply
is passed, and a reply with the passage's other amount is caught."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.scoring import MetaRAG

#: (question, context, faithful reply, reply with the other amount)
MONEY = [
    (
        "whats the daily cash withdrawal limit on the basic card",
        "Basic debit cards have a daily cash withdrawal limit of £300. Gold account holders "
        "can withdraw up to £800 a day.",
        "Three hundred pounds.",
        "Eight hundred pounds.",
    ),
    (
        "how much is the replacement residence card",
        "A replacement residence card costs €60. A first card for children under 16 costs €30.",
        "Sixty euros.",
        "Thirty euros.",
    ),
]


@pytest.mark.parametrize(("question", "context", "faithful", "wrong"), MONEY)
def test_an_amount_of_money_in_words(
    question: str, context: str, faithful: str, wrong: str
) -> None:
    judge = MetaRAG(LocalJudge())
    kept = judge.score_sync(question, faithful, [context])
    caught = judge.score_sync(question, wrong, [context])
    assert kept.score < 0.3, [f.text for f in kept.factoids]
    assert caught.score >= 0.5, [f.text for f in caught.factoids]
