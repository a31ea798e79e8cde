"""What a short reply claims, and what it does not: a value the question itself gives ("the 7am
flight") is the user's premise, not the reply's claim, so a passage that gives it otherwise
("07:05") does not contradict the reply; an approximate amount ("just under 25%") agrees with
the passage's amount near it; a day written as an ordinal before its month ("3rd Feb 2026") is
a date."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from guardrail.scoring import MetaRAG
from tests.verifying import verified


def scored(question: str, answer: str, context: str) -> tuple[float, list[str]]:
    """The answer's score and every verdict's reason."""
    report = MetaRAG(LocalJudge()).score_sync(question, answer, [context])
    reasons = [x.reason for f in report.factoids for v in f.variants for x in v.verdicts]
    return report.score, reasons


FLIGHTS = (
    "Booking reference K7QX: flight TP1351 to Lisbon departs 07:05 from Terminal 2. The return "
    "flight TP1358 lands at Terminal 1."
)


def test_a_value_of_the_question_is_not_held_against_the_reply() -> None:
    question = "which terminal for the 7am lisbon flight?"
    right, reasons = scored(question, "Terminal 2.", FLIGHTS)
    assert right == 0.0 and not any("7am" in r for r in reasons), reasons
    wrong, reasons = scored(question, "Terminal 1.", FLIGHTS)
    assert wrong == 1.0 and any("not 1" in r for r in reasons), reasons


@pytest.mark.parametrize(
    ("statement", "outcome"),
    [
        ("The card's representative APR is just under 25%.", Support.SUPPORTED),
        ("The card's representative APR is roughly 25%.", Support.SUPPORTED),
        ("The card's representative APR is about 30%.", None),
        ("The card's representative APR is 25%.", None),
    ],
)
def test_an_approximate_amount_agrees_with_one_near_it(
    statement: str, outcome: Support | None
) -> None:
    context = "Our credit card has a representative APR of 24.9% variable."
    (found,) = verified("en", [statement], context)
    if outcome is None:  # an exact or a far amount is not supported
        assert found is not Support.SUPPORTED
    else:
        assert found is outcome


@pytest.mark.parametrize(
    ("text", "day", "year"),
    [
        ("Your permit is valid until 3rd Feb 2026.", 203.0, 2026.0),
        ("The office reopens on the 21st of March.", 321.0, None),
    ],
)
def test_an_ordinal_day_before_its_month_is_a_date(
    text: str, day: float, year: float | None
) -> None:
    with reading("en"):
        values = extract(text)
    assert [v.amount for v in values if v.kind == "date"] == [day]
    assert [v.amount for v in values if v.kind == "year"] == ([year] if year else [])


def test_an_ordinal_before_another_word_stays_an_ordinal() -> None:
    with reading("en"):
        values = extract("The clinic is on the 3rd floor.")
    assert [(v.kind, v.amount) for v in values] == [("ordinal", 3.0)]


def test_a_date_reply_with_its_month_in_words_is_placed_by_the_date_in_figures() -> None:
    context = "Residence permit details: valid until 14/03/2027. Biometrics taken 02/02/2024."
    question = "When does my residence permit run out?"
    right, reasons = scored(question, "14th Mar 2027.", context)
    assert right < 1.0 and not any("another date" in r for r in reasons), reasons
    wrong, reasons = scored(question, "2nd Feb 2027.", context)
    assert wrong == 1.0 and any("another date" in r for r in reasons), reasons
