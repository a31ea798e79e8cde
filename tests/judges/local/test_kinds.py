"""Conflicts of kind and moved facts: "must pay" against "free", "immediately" against a
waiting time, a limit phrased two ways, and a fact moved to another name the context holds —
in English and through the language modules' cue words."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.bounds import cues
from guardrail.judges.local.values import extract
from guardrail.scoring import MetaRAG

FLAGGED = 0.5


def _score(answer: str, context: str, question: str = "What should I know?") -> float:
    return MetaRAG(LocalJudge()).score_sync(question, answer, [context]).score


@pytest.mark.parametrize(
    ("context", "contradicted", "faithful"),
    [
        (
            "Library cards are free for residents of the city.",
            "Residents of the city must pay for library cards.",
            "For residents of the city, library cards are free.",
        ),
        (
            "The walk-in clinic treats dental emergencies immediately.",
            "The walk-in clinic treats dental emergencies only after a three-week wait.",
            "Dental emergencies are treated immediately at the walk-in clinic.",
        ),
        (
            "Frauen bekommen Verschreibungen während der Schwangerschaft kostenlos.",
            "Frauen müssen Verschreibungen während der Schwangerschaft bezahlen.",
            "Während der Schwangerschaft bekommen Frauen Verschreibungen kostenlos.",
        ),
    ],
)
def test_a_conflict_of_kind_is_flagged_and_its_restatement_passes(
    context: str, contradicted: str, faithful: str
) -> None:
    question = "What are the rules?"
    assert _score(contradicted, context, question) >= FLAGGED
    assert _score(faithful, context, question) < FLAGGED


LIMIT = "Do not exceed 4 capsules in 24 hours."


def test_a_limit_phrased_another_way_with_another_amount_is_flagged() -> None:
    answer = "Patients may take no more than 9 capsules in 24 hours."
    assert _score(answer, LIMIT, "How many capsules may I take?") >= FLAGGED


def test_the_same_limit_phrased_another_way_passes() -> None:
    answer = "Patients may take no more than 4 capsules in 24 hours."
    assert _score(answer, LIMIT, "How many capsules may I take?") < FLAGGED


def test_not_exceeding_an_amount_is_an_upper_bound() -> None:
    (value,) = [v for v in extract("Do not exceed 6 tablets a day.") if v.kind == "quantity"]
    assert value.bound == 1
    (value,) = [v for v in extract("Doses exceeding 6 tablets a day.") if v.kind == "quantity"]
    assert value.bound == -1


def test_a_fact_moved_to_another_name_of_the_context_is_contradicted() -> None:
    context = (
        "Maria Lopez chairs the housing committee. Daniel Brooks chairs the finance committee."
    )
    question = "Who chairs the housing committee?"
    assert _score("Daniel Brooks chairs the housing committee.", context, question) >= 0.8
    assert _score("Maria Lopez chairs the housing committee.", context, question) <= 0.3


def test_free_in_another_sense_is_no_price() -> None:
    context = "Patients must pay for the gluten free bread."
    assert _score("Patients must pay for the gluten free bread.", context) < FLAGGED


def test_each_language_adds_its_own_cues_to_englishs() -> None:
    assert "sofort" in cues("de").immediate and "immediately" in cues("de").immediate
    assert "sofort" not in cues("en").immediate
    assert "betalen" in cues("nl").pay


def test_the_near_end_of_a_range_takes_the_far_ends_unit() -> None:
    near, far = [v for v in extract("Toast the almonds 10 to 12 minutes.") if v.kind == "quantity"]
    assert (near.key, near.amount) == (far.key, 10.0) == ("minutes", 10.0)
    context = "Toast the almonds in the oven for 10 to 12 minutes."
    answer = "Toast the almonds in the oven for 30 to 12 minutes."
    assert _score(answer, context, "How long do I toast almonds?") >= FLAGGED


@pytest.mark.parametrize(
    "text", ["children aged 5 to 16", "for 5- to 16-year-olds", "pupils aged 5-16"]
)
def test_both_ends_of_an_age_range_are_ages(text: str) -> None:
    ages = sorted(v.amount for v in extract(text) if v.key == "months" and v.amount)
    assert ages == [60.0, 192.0]


def test_an_age_range_written_two_ways_is_not_a_conflict() -> None:
    context = "All children aged 5 to 16 have the right to a free school place."
    assert _score("School places are free for 5- to 16-year-olds.", context) < FLAGGED
    assert _score("School places are free for 5- to 18-year-olds.", context) >= FLAGGED
