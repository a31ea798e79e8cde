"""The asker's age against the age group a passage gives a value for: a short reply that
takes the value of a group the question rules out ("im an adult" + "Four tablets." against
"Children 12-15: maximum 4 tablets in 24 hours") is not passed, and a reply with the asker's
own group's value still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail import Guard
from guardrail.judges.local.ages import asker_age, group_ages, outside

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def guard(tmp_path: Path) -> Guard:
    """The shipped default policy with the offline judge, its logs in ``tmp_path``."""
    return Guard.from_yaml(
        ROOT / "policies" / "default.yaml",
        audit_log=tmp_path / "a.jsonl",
        review_db=tmp_path / "r.sqlite3",
        fallback_log=tmp_path / "f.jsonl",
    )


@pytest.mark.parametrize(
    ("question", "age"),
    [
        ("how many drops for my 4 year old", (4, 4)),
        ("whats the fee for my son, he's 10", (10, 10)),
        ("im 17 and work weekends, how long is my break", (17, 17)),
        ("im an adult, how many can i take", (18, 120)),
        ("im 37 weeks pregnant, can i still fly", None),
        ("how many tablets can i take", None),
        ("my 3 year old and my 9 year old both have a cough", None),
    ],
)
def test_the_askers_age(question: str, age: tuple[int, int] | None) -> None:
    assert asker_age(question) == age


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("Children 6-11 years: 10 drops three times a day.", (6, 11)),
        ("€45 for children aged 6 to 11", (6, 11)),
        ("Free for people aged 75 and over.", (75, 120)),
        ("Entry is free for children under 12.", (0, 11)),
        ("Adults: up to 8 tablets in 24 hours.", (18, 120)),
        ("€90 for adults and €45 for children aged 6 to 11.", None),
        ("Take one tablet twice a day.", None),
    ],
)
def test_the_group_a_sentence_speaks_of(text: str, group: tuple[int, int] | None) -> None:
    assert group_ages(text) == group


def test_outside_needs_both_ages() -> None:
    four, seven = asker_age("my 4 year old"), asker_age("my 7 year old")
    assert four is not None and seven is not None
    assert outside(four, "Children 6-11 years: 10 drops.") == (6, 11)
    assert outside(seven, "Children 6-11 years: 10 drops.") is None
    assert asker_age("how many drops") is None


CONTEXT = (
    "Fevrolin oral drops: Children 2-5 years: 5 drops three times a day. "
    "Children 6-11 years: 10 drops three times a day. Not for children under 2."
)


def test_a_reply_with_another_groups_value_is_not_passed(guard: Guard) -> None:
    question = "how many fevrolin drops can i give my 4 year old"
    wrong = guard.check(question, "Ten drops.", [CONTEXT])
    right = guard.check(question, "Five drops.", [CONTEXT])
    assert wrong.decision.action != "pass"
    assert right.decision.action == "pass"


def test_a_statement_of_the_groups_own_rule_is_left_alone(guard: Guard) -> None:
    """ "It's 16 and up there" restates the group's rule; "Not at the pharmacy" is what the
    asker cannot have: neither applies another group's value to the asker."""
    context = "The pharmacy gives the travel jab to people aged 16 and over."
    question = "can my 14 year old get the travel jab at the pharmacy"
    result = guard.check(question, "It's 16 and over at the pharmacy.", [context])
    assert result.decision.action == "pass"
