"""Comparing a run with an earlier one: intervals, regressions, questions that turned wrong,
and the CI gate's reasons."""

from __future__ import annotations

import json

import pytest

from guardrail.exceptions import ConfigError
from guardrail.probe.baseline import (
    Rate,
    compare,
    difference_interval,
    gate,
    load_baseline,
    wilson,
)
from guardrail.probe.report import tally
from guardrail.probe.run import ProbeRecord


def record(i: int, outcome: str, rule: str = "fact", relation: str = "r") -> ProbeRecord:
    return ProbeRecord(
        id=f"q{i}", ok=outcome != "error", question=f"Is it true that {i}?", expected="yes",
        rule=rule, form="template", relation=relation, triple=["a", relation, str(i)],
        outcome=outcome,
    )  # fmt: skip


def dump(records: list[ProbeRecord]) -> list[dict]:
    return [r.model_dump(mode="json") for r in records]


def test_wilson_interval_matches_the_textbook_values():
    low, high = wilson(5, 10) or (0, 0)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson(0, 20) or (0, 0)
    assert low == 0.0 and round(high, 4) == 0.1611
    assert wilson(0, 0) is None


def test_newcombe_difference_interval():
    # Newcombe (1998), example (a): 56/70 vs 48/80 -> difference 0.2, 95 % CI 0.0524 to 0.3339
    low, high = difference_interval(Rate(48, 80), Rate(56, 70)) or (0, 0)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


def test_a_significant_rise_is_a_regression_and_turned_wrong_questions_are_listed():
    then = [record(i, "correct") for i in range(40)] + [record(40, "both")]
    now = [record(i, "both" if i < 12 else "correct") for i in range(40)] + [record(40, "correct")]
    comparison = compare(dump(then), now, "old.json")
    overall = comparison.rows[0]
    assert (overall.group, overall.then.hallucinations, overall.now.hallucinations) == (
        "overall", 1, 12
    )  # fmt: skip
    assert overall.regressed and comparison.regressions
    assert [w["id"] for w in comparison.turned_wrong] == [f"q{i}" for i in range(12)]
    assert comparison.turned_right == 1 and comparison.common == 41
    reasons = gate(tally(now), comparison, fail_over=None, fail_on_regression=True)
    assert any(r.startswith("regression in overall all: 2.4 [") for r in reasons), reasons


def test_one_question_turning_wrong_is_listed_but_is_no_regression():
    then = [record(i, "correct") for i in range(30)]
    now = [record(i, "both" if i == 0 else "correct") for i in range(30)]
    comparison = compare(dump(then), now, "old.json")
    assert len(comparison.turned_wrong) == 1 and not comparison.regressions
    assert gate(tally(now), comparison, fail_over=None, fail_on_regression=True) == []


def test_groups_by_rule_type_and_relation():
    then = [record(i, "correct", "closed_world", "eligible_for") for i in range(20)]
    now = [record(i, "both", "closed_world", "eligible_for") for i in range(20)]
    now += [record(100 + i, "correct", "fact", "belongs_to") for i in range(5)]
    rows = {(r.group, r.name): r for r in compare(dump(then), now, "x").rows}
    assert rows[("rule", "closed_world")].regressed
    assert rows[("relation", "eligible_for")].regressed
    assert rows[("rule", "fact")].then.answered == 0 and not rows[("rule", "fact")].regressed


def test_fail_over_counts_unparsed_replies_and_errors_fail_closed():
    fine = [record(i, "correct") for i in range(9)] + [record(9, "both")]
    assert gate(tally(fine), None, fail_over=0.1, fail_on_regression=False) == []
    assert gate(tally(fine), None, fail_over=0.05, fail_on_regression=False) == [
        "hallucination rate 10.0 % is over 5 %"
    ]
    mute = [record(i, "unparsed") for i in range(9)] + [record(9, "correct")]
    reasons = gate(tally(mute), None, fail_over=0.2, fail_on_regression=False)
    assert reasons == ["90.0 % of replies had no verdict, over 20 %"]
    silent = [record(i, "unparsed") for i in range(3)]
    assert (
        "no reply had a verdict"
        in gate(tally(silent), None, fail_over=0.5, fail_on_regression=False)[0]
    )
    broken = [record(0, "correct"), record(1, "error")]
    assert gate(tally(broken), None, fail_over=None, fail_on_regression=False) == [
        "1 questions failed (no reply to judge)"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"overall": {}}', "not a probe report"),
        ('{"questions": [{"id": 1}]}', r"questions\[0\] is not a probe record"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
    ],
)
def test_a_bad_baseline_is_one_line(tmp_path, content, message):
    path = tmp_path / "old.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_baseline(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_baseline(tmp_path / "missing.json")


def test_a_report_round_trips(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"questions": dump([record(1, "correct")])}))
    assert [q["id"] for q in load_baseline(path)] == ["q1"]
