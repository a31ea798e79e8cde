"""The similarity oracles classify hand-written replies as Algorithm 3 says."""

from __future__ import annotations

import pytest

from guardrail.probe.facts import Relation
from guardrail.probe.oracles import (
    Structure,
    classify,
    conflicts,
    jaccard,
    normalize,
    relation_synonyms,
)
from guardrail.probe.prompt import parse_reply

TRUTH = [("a", "part_of", "b"), ("b", "part_of", "c"), ("a", "part_of", "c")]


def judge(reply: str, response_triples, expected: str = "yes"):
    return classify(parse_reply(reply), expected, response_triples, TRUTH)


def test_refusal_is_honest_and_a_right_verdict_is_correct():
    assert judge("I don't know.", []).outcome == "refused"
    assert judge("Yes. Because ...", []).outcome == "correct"
    assert judge("Perhaps.", []).outcome == "unparsed"


def test_wrong_verdict_with_the_right_facts_is_a_wrong_inference():
    result = judge("No.", TRUTH)
    assert result.outcome == "wrong_inference"
    assert (result.node_similarity, result.edge_similarity) == (1.0, 1.0)


def test_same_entities_wrong_relations_is_a_wrong_inference():
    triples = [("a", "next_to", "b"), ("b", "next_to", "c"), ("a", "next_to", "c")]
    result = judge("No.", triples)
    assert result.outcome == "wrong_inference" and result.node_similarity == 1.0
    assert result.edge_similarity == 0.0


def test_other_entities_are_wrong_knowledge_or_both():
    # one extra entity and edge: nodes 3/4 and edges 3/4, both below 0.8
    mostly = judge("No.", [*TRUTH, ("c", "part_of", "d")])
    assert (mostly.outcome, mostly.node_similarity, mostly.edge_similarity) == ("both", 0.75, 0.75)
    unrelated = [("x", "part_of", "y")]
    result = judge("No.", unrelated)
    assert result.outcome == "both" and result.node_similarity == 0.0


def test_wrong_knowledge_when_only_nodes_diverge():
    truth_edges = TRUTH
    result = classify(
        parse_reply("No."), "yes", [*truth_edges, ("a", "part_of", "z")], truth_edges,
        theta_nodes=0.9, theta_edges=0.7,
    )  # fmt: skip
    assert result.outcome == "wrong_knowledge"  # nodes 3/4 < 0.9, edges 3/4 >= 0.7


def test_normalization_makes_surface_variants_the_same_node():
    assert normalize("The Kidneys,") == normalize("kidney")
    assert Structure.of([("The ibuprofen", "treats", "back pains")]) == Structure.of(
        [("ibuprofen", "treat", "the back pain")]
    )
    synonyms = {normalize("paracetamol"): normalize("acetaminophen")}
    assert normalize("Paracetamol", synonyms) == normalize("acetaminophen")


@pytest.mark.parametrize(
    ("a", "b", "value"), [(set(), set(), 1.0), ({1}, {2}, 0.0), ({1, 2}, {2}, 0.5)]
)
def test_jaccard(a, b, value):
    assert jaccard(frozenset(a), frozenset(b)) == value


def test_catalogue_wordings_are_one_edge_label():
    relations = {
        "contraindicated_in": Relation(
            type="passive", phrase="contraindicated in", negation="not contraindicated in",
            synonyms=["unsafe in"],
        )
    }  # fmt: skip
    synonyms = relation_synonyms(relations)
    truth = [("ibuprofen", "contraindicated_in", "pregnancy")]
    for label in ("contraindicated in", "unsafe in", "contraindicated_in"):
        response = Structure.of([("Ibuprofen", label, "pregnancy")], synonyms)
        assert response == Structure.of(truth, synonyms), label
    negated = Structure.of([("ibuprofen", "not contraindicated in", "pregnancy")], synonyms)
    assert negated.edges != Structure.of(truth, synonyms).edges


def test_conflicting_points_are_the_ones_outside_the_ground_truth():
    points = [
        [("a", "part_of", "b")],  # in the ground truth
        [("a", "next_to", "b")],  # wrong relation
        [("a", "part_of", "z")],  # unknown entity
        [],  # nothing read
    ]
    assert conflicts(points, TRUTH) == [1, 2]
