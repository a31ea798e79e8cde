"""Yes/no attributes of JSON records: statements that assert or deny them against the record."""

from __future__ import annotations

import json

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.records import RecordFacts
from guardrail.judges.registry import make_judge
from guardrail.models import Label
from guardrail.scoring.metarag import MetaRAG
from guardrail.scoring.parsing import parse_verdict

RECORD = json.dumps(
    {
        "name": "Cafe Blue",
        "city": "Goleta",
        "attributes": {
            "WiFi": "u'free'",
            "RestaurantsTakeOut": True,
            "RestaurantsReservations": False,
            "OutdoorSeating": False,
            "HasTV": None,
            "BusinessParking": {"garage": False, "street": False, "lot": True, "valet": False},
            "Music": {"no_music": False, "live": False},
        },
    }
)


def _facts() -> RecordFacts:
    found = RecordFacts.of(RECORD, Lexicon.load())
    assert found is not None
    return found


def test_a_record_yields_its_yes_no_attributes():
    facts = {f.says: (sorted(f.stems), f.value) for f in _facts().facts}
    assert facts["WiFi: \"u'free'\""] == (["wifi"], True)
    assert facts["RestaurantsTakeOut: true"] == (["takeout"], True)
    assert facts["OutdoorSeating: false"] == (["outdoor", "seat"], False)
    assert facts["BusinessParking.street: false"] == (["park", "street"], False)
    assert facts["Music.no_music: false"] == (["music"], True)  # no "no music": there is music
    assert facts["HasTV: null"] == (["tv"], None)  # held, but not known
    # keys a statement would not name on their own are left out
    assert not any(s.startswith("BusinessParking.lot") for s in facts)


@pytest.mark.parametrize("context", ["Cafe Blue serves coffee.", "[1, 2]", '{"a": ', '{"a": 1}'])
def test_other_contexts_have_no_record_facts(context):
    assert RecordFacts.of(context, Lexicon.load()) is None


@pytest.mark.parametrize(
    ("statement", "conflicting"),
    [
        ("Cafe Blue has outdoor seating.", "OutdoorSeating: false"),
        ("The restaurant takes reservations.", "RestaurantsReservations: false"),
        ("Street parking is available.", "BusinessParking.street: false"),
        ("Wi-Fi is not available.", "WiFi: \"u'free'\""),
        ("Cafe Blue has no free WiFi.", "WiFi: \"u'free'\""),
        ("It does not offer take-out.", "RestaurantsTakeOut: true"),
        ("The cafe has live music.", "Music.live: false"),
        ("It offers outdoor seating and free Wi-Fi.", "OutdoorSeating: false"),
    ],
)
def test_statements_against_the_record_conflict(statement, conflicting):
    found = _facts().conflict(statement)
    assert found is not None and found.says == conflicting


@pytest.mark.parametrize(
    "statement",
    [
        "Cafe Blue offers free Wi-Fi.",
        "Reservations are not accepted.",
        "It doesn't offer garage, street, or valet parking.",  # one negation, a whole list
        "There is no outdoor seating, but it offers take-out.",
        "Cafe Blue is in Goleta.",  # no yes/no attribute named
    ],
)
def test_statements_that_agree_with_the_record_do_not_conflict(statement):
    assert _facts().conflict(statement) is None


@pytest.mark.parametrize("statement", ["The cafe has a TV.", "There is no TV."])
def test_an_attribute_the_record_does_not_know_is_not_sure(statement):
    """``"HasTV": null``: the record holds the attribute without a value, so neither a claim
    nor a denial of it is supported."""
    found = _facts().conflict(statement)
    assert found is not None and found.value is None
    label, reason, _ = parse_verdict(
        LocalJudge().answer("verify", {"statement": statement, "context": RECORD})
    )
    assert label is Label.NOT_SURE and "HasTV: null" in reason


def test_a_new_clause_after_a_comma_is_not_negated():
    """The negation of the first clause does not reach the second."""
    found = _facts().conflict("While it has no valet parking, there is street parking.")
    assert found is not None and found.says == "BusinessParking.street: false"


@pytest.mark.parametrize("spec", ["local", "local:rules", "local:encoder"])
def test_every_offline_verifier_reports_the_conflict(spec):
    if spec == "local:encoder":
        pytest.importorskip("onnxruntime", reason="the encoder extra is not installed")
    judge = make_judge(spec)
    assert isinstance(judge, LocalJudge)
    inputs = {"statement": "Cafe Blue has outdoor seating.", "context": RECORD}
    label, reason, _ = parse_verdict(judge.answer("verify", inputs))
    assert label is Label.NO and "OutdoorSeating: false" in reason
    framed = {**inputs, "statement": "It is not true that Cafe Blue has outdoor seating."}
    assert parse_verdict(judge.answer("verify", framed))[0] is Label.YES


def test_metarag_scores_a_contradicted_attribute_one():
    report = MetaRAG(LocalJudge()).score_sync(
        "Tell me about Cafe Blue.", "Cafe Blue has outdoor seating.", [RECORD]
    )
    assert report.score == 1.0
    [factoid] = report.factoids
    assert factoid.spans
