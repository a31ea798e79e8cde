"""The seeded-bot targets on a second, unrelated fact set (European geography), written apart
from the healthcare example: every replaced and every added wrong belief is caught, and a
truthful bot is never called a hallucination."""

from __future__ import annotations

import asyncio

import pytest

from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import FactBase, Triple, parse_facts
from guardrail.probe.run import Prober, ProbeRecord, plan, question_id
from guardrail.probe.scripted import BeliefChatbot

GEOGRAPHY = """relations:
  borders: {type: active, phrase: borders, negation: does not border, symmetric: true,
            complete: true}
  flows_through: {type: active, phrase: flows through, negation: does not flow through,
                  complete: true}
  capital_of: {type: passive, phrase: the capital of, negation: not the capital of,
               asymmetric: true}
  part_of: {type: passive, phrase: part of, negation: not part of, transitive: true,
            inverse: contains}
  contains: {type: active, phrase: contains, negation: does not contain}
  member_of: {type: passive, phrase: a member of, negation: not a member of}
  lies_in_eu: {type: active, phrase: lies in, negation: does not lie in}
facts:
  - [Portugal, borders, Spain]
  - [Spain, borders, France]
  - [France, borders, Belgium]
  - [France, borders, Germany]
  - [Germany, borders, Austria]
  - [Austria, borders, Hungary]
  - [Germany, borders, Belgium]
  - [the Danube, flows_through, Germany]
  - [the Danube, flows_through, Austria]
  - [the Danube, flows_through, Hungary]
  - [the Rhine, flows_through, Germany]
  - [the Rhine, flows_through, France]
  - [the Tagus, flows_through, Spain]
  - [the Tagus, flows_through, Portugal]
  - [the Loire, flows_through, France]
  - [Lisbon, capital_of, Portugal]
  - [Madrid, capital_of, Spain]
  - [Vienna, capital_of, Austria]
  - [Lisbon, part_of, Portugal]
  - [Porto, part_of, Portugal]
  - [Lyon, part_of, France]
  - [Graz, part_of, Austria]
  - [Portugal, part_of, the Iberian Peninsula]
  - [Spain, part_of, the Iberian Peninsula]
  - [Portugal, member_of, the EU]
  - [Spain, member_of, the EU]
  - [France, member_of, the EU]
  - [Austria, member_of, the EU]
  - [Germany, member_of, the EU]
  - [Hungary, member_of, the EU]
rules:
  - name: eu_city
    if:
      - [?city, part_of, ?country]
      - [?country, member_of, the EU]
    then: [?city, lies_in_eu, the EU]
"""
REPLACED = {
    ("the Rhine", "flows_through", "France"): ("the Rhine", "flows_through", "Belgium"),
    ("Lyon", "part_of", "France"): ("Lyon", "part_of", "Belgium"),
    ("Austria", "member_of", "the EU"): ("Austria", "member_of", "EFTA"),
}
ADDED = [
    ("Portugal", "borders", "France"),
    ("the Danube", "flows_through", "France"),
    ("the Loire", "flows_through", "Spain"),
]


def beliefs(truth: FactBase, replaced: dict, added: list) -> FactBase:
    facts = [Triple.model_validate(list(replaced.get(f.key(), f.key()))) for f in truth.facts]
    return truth.model_copy(update={"facts": facts + [Triple.model_validate(t) for t in added]})


def run(truth: FactBase, bot: BeliefChatbot, asked) -> list[ProbeRecord]:
    prober = Prober(bot, TripleExtractor(OfflineExtractor(), truth.relations))
    return asyncio.run(prober.run(asked)).records


@pytest.fixture(scope="module")
def truth() -> FactBase:
    return parse_facts(GEOGRAPHY)


def test_every_replaced_and_added_belief_is_caught(truth):
    asked = plan(truth)
    records = run(truth, BeliefChatbot(beliefs(truth, REPLACED, ADDED), asked), asked)
    by_id = {r.id: r for r in records}
    for fact in REPLACED:
        about = [q for q in asked if fact in q.derivation.sources()]
        assert any(by_id[question_id(q)].hallucination for q in about), fact
    for triple in ADDED:
        caught = [r for r in records if tuple(r.triple) == triple and r.hallucination]
        assert caught and {r.rule for r in caught} == {"closed_world"}, triple


def test_a_truthful_bot_is_never_a_hallucination(truth):
    asked = plan(truth)
    records = run(truth, BeliefChatbot(truth, asked), asked)
    assert {r.outcome for r in records} == {"correct"}
    assert {r.rule for r in records} >= {"closed_world", "declared", "transitive", "composite"}
    # asymmetric: the capitals reversed are asked, expected "no"
    reversed_ = {tuple(r.triple) for r in records if r.rule == "closed_world"}
    assert ("Portugal", "capital_of", "Lisbon") in reversed_
