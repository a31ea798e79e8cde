"""Clear contradictions are caught decisively, faithful restatements are not: the conflict
check shared by every offline verifier, on the public suite (tests/data/contradictions.jsonl)
and on the cases that motivated it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import Support
from guardrail.judges.registry import make_judge
from guardrail.models import Label, Relation
from guardrail.scoring import MetaRAG
from guardrail.scoring.rt4chart import RT4Chart
from tests.verifying import verified

SUITE = Path(__file__).resolve().parents[2] / "data" / "contradictions.jsonl"
CURIE = "Marie Curie was born in Warsaw in 1867."


def _suite() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SUITE.read_text(encoding="utf-8").splitlines() if line]


def test_the_suite_covers_every_value_kind_with_enough_cases():
    cases = _suite()
    contradictions = [c for c in cases if c["expect"] == "contradicted"]
    kinds = {c["kind"] for c in contradictions}
    assert len(contradictions) >= 60
    assert {"number", "date", "year", "time", "weekday", "ordinal", "money", "percent"} <= kinds
    assert {"person", "place", "organisation", "antonym", "comparative", "negation"} <= kinds
    assert sum(c["expect"] == "faithful" for c in cases) >= 30
    assert len({c["id"] for c in cases}) == len(cases)


def test_default_judge_on_the_suite():
    """>= 90 % of contradictions score >= 0.8 and >= 90 % of restatements <= 0.3."""
    scorer = MetaRAG(make_judge("local"))
    caught = kept = contradictions = restatements = 0
    for case in _suite():
        score = scorer.score_sync("", case["statement"], [case["context"]]).score
        if case["expect"] == "contradicted":
            contradictions += 1
            caught += score >= 0.8
        else:
            restatements += 1
            kept += score <= 0.3
    assert caught / contradictions >= 0.9
    assert kept / restatements >= 0.9


@pytest.mark.parametrize("spec", ["local", "local:rules"])
def test_a_contradicted_factoid_scores_one_with_its_span_on_the_conflicting_word(spec):
    answer = "Marie Curie was born in Vienna."
    report = MetaRAG(make_judge(spec)).score_sync("", answer, [CURIE])
    (factoid,) = report.factoids
    assert report.score == 1.0 and factoid.score == 1.0
    labels = {(v.relation, v.label) for v in factoid.variants}
    assert labels == {(Relation.SYNONYM, Label.NO), (Relation.ANTONYM, Label.YES)}
    covered = "".join(answer[s:e] for s, e in report.flagged_spans)
    assert "Vienna" in covered
    assert factoid.conflicts() == ["context says Warsaw, not Vienna"]


def test_rt4chart_labels_a_conflict_contradicted():
    report = RT4Chart(make_judge("local")).score_sync(
        "", "Marie Curie was born in Vienna.", [CURIE]
    )
    assert report.flagged
    claims = report.settings["claims"]
    assert [c["local"] for c in claims] == ["CONTRADICTED"]


@pytest.mark.parametrize(
    ("statement", "context", "reply"),
    [
        ("The free trial does not last 30 days.", "The free trial lasts 14 days.", "YES"),
        ("The free trial lasts 30 days.", "The free trial lasts 14 days.", "NO"),
        ("The free trial lasts two weeks.", "The free trial lasts 14 days.", "YES"),
        (
            "Asylum seekers can apply for a work permit after two months.",
            "Asylum seekers may apply for a work permit six months after filing their claim.",
            "NO",
        ),
        (
            "Ibuprofen is the preferred painkiller during pregnancy.",
            "Paracetamol is the preferred painkiller during pregnancy.",
            "NO",
        ),
        ("The pharmacy closes at 18:00.", "The pharmacy closes at 6 pm.", "YES"),
    ],
)
@pytest.mark.parametrize("verifier", ["rules", "trained"])
def test_every_verifier_shares_the_conflict_check(verifier, statement, context, reply):
    answer = LocalJudge(verifier=verifier).answer(
        "verify", {"statement": statement, "context": context}
    )
    assert answer.split(".")[0] == reply, answer


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        # an abbreviation of a name the context spells out
        (
            "Travellers on the US watch list can now ask why they were stopped.",
            "Travellers on the United States' watch list can now ask why they were stopped.",
        ),
        # part of a name the context uses: the same body, not a rival one
        (
            "The UN Security Council met to discuss the situation in the region.",
            "The Security Council met on Saturday to discuss the situation in the Baltic region.",
        ),
        (
            "Defence Minister Ana Ruiz said the airspace was never violated.",
            "Ruiz, the country's top military official, said the airspace was never violated.",
        ),
        # dotted abbreviations, possessives, inflected first words
        (
            "The talks were the first between a US and a Cuban leader in decades.",
            "The talks were the first between a U.S. president and a Cuban leader in decades.",
        ),
        (
            "Dabbing the paint with a cloth removes the excess.",
            "Dab the paint with a cloth to remove the excess, then let it dry.",
        ),
        # a capitalized first word in a clause the unit words differently: no name swapped
        (
            "Recently, the mayor offered the vendor a new stall.",
            "After her interview on BBC radio, the mayor offered the vendor a new stall.",
        ),
        ("Stir well and cook for ten minutes.", "Add the rice, then cook for ten minutes."),
    ],
)
@pytest.mark.parametrize("verifier", ["rules", "trained"])
def test_names_the_context_words_differently_are_no_conflict(verifier, statement, context):
    """Real answers shorten, abbreviate and rephrase names; only a name put in another's
    place is a conflict."""
    answer = LocalJudge(verifier=verifier).answer(
        "verify", {"statement": statement, "context": context}
    )
    assert not answer.startswith("NO. Conflicting value"), answer


def test_the_reason_names_the_conflicting_values():
    reply = LocalJudge().answer(
        "verify", {"statement": "Curie was born in Vienna.", "context": CURIE}
    )
    assert reply.startswith("NO. Conflicting value: the context says Warsaw, not Vienna")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("25 vacation days", "twenty-five days of annual leave"),
        ("1,200 paintings", "1200 paintings"),
        ("at 6 pm", "at 18:00"),
        ("for two weeks", "for 14 days"),
        ("on 15 March 2024", "on March 15, 2024"),
        ("costs $120", "costs 120 dollars"),
        ("20 per cent", "20%"),
        ("a 2-year warranty", "two years of warranty"),
        ("42 km", "42 kilometres"),
        ("3rd", "third"),
        ("at 8 in the morning", "at 8 am"),
        ("at 4 in the afternoon", "at 16:00"),
        ("at 7 in the evening", "at 7pm"),
        ("at 11 at night", "at 23:00"),
    ],
)
def test_spellings_of_one_value_compare_equal(one, other):
    ones = [v for v in extract(one) if v.kind != "name"]
    others = [v for v in extract(other) if v.kind != "name"]
    assert len(ones) == len(others) >= 1
    assert all(a.comparable(b) and a.same(b) for a, b in zip(ones, others, strict=True))


@pytest.mark.parametrize(
    ("one", "other"),
    [("30 days", "14 days"), ("at 9 pm", "at 6 pm"), ("in 1867", "in 1871"), ("$80", "$120")],
)
def test_different_values_of_one_kind_differ(one, other):
    (a,) = extract(one)
    (b,) = extract(other)
    assert a.comparable(b) and not a.same(b)


def test_values_of_different_kinds_are_not_compared():
    (days,) = extract("30 days")
    (money,) = extract("$30")
    (year,) = extract("in 1998")
    assert not days.comparable(money) and not money.comparable(year)


@pytest.mark.parametrize(
    "statement",
    ["Not if you give one month's notice.", "No, not if you give one month's notice."],
)
def test_a_wrong_value_in_a_denied_condition_is_not_supported(statement: str) -> None:
    """ "Not if ..." denies the question's clause, not the condition's value: a wrong value
    there contradicts the passage; it is never read as denying that value."""
    context = "Shop workers can opt out of Sunday work by giving three months' written notice."
    (outcome,) = verified("en", [statement], context)
    assert outcome is Support.CONTRADICTED
