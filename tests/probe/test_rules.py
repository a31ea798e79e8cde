"""Declared cross-relation rules and closed-world questions: what they derive, and bad rules
as one line with the line number."""

from __future__ import annotations

import pytest

from guardrail.probe.facts import FactsError, parse_facts
from guardrail.probe.questions import questions
from guardrail.probe.reasoning import closure, derive

GEO = """relations:
  part_of: {type: passive, phrase: part of, negation: not part of}
  member_of: {type: passive, phrase: a member of, negation: not a member of}
  in_eu_state: {type: passive, phrase: in an EU member state, negation: not in an EU member state}
  borders: {type: active, phrase: borders, negation: does not border, symmetric: true,
            complete: true}
  flows_through: {type: active, phrase: flows through, negation: does not flow through,
                  complete: true}
facts:
  - [Lyon, part_of, France]
  - [France, member_of, the EU]
  - [Geneva, part_of, Switzerland]
  - [France, borders, Spain]
  - [Spain, borders, Portugal]
  - [France, borders, Switzerland]
  - [the Danube, flows_through, Austria]
  - [the Rhine, flows_through, Switzerland]
  - [the Rhine, flows_through, France]
"""
RULE = """rules:
  - name: eu_city
    if:
      - [?city, part_of, ?country]
      - [?country, member_of, the EU]
    then: [?city, in_eu_state, the EU]
"""


def test_a_declared_rule_chains_two_relations_and_keeps_its_derivation():
    base = parse_facts(GEO + RULE)
    knowledge = derive(base)
    derived = {d.triple: d for d in knowledge.derived if d.holds}
    lyon = derived[("Lyon", "in_eu_state", "the EU")]
    assert lyon.rule == "declared"
    assert lyon.derivation.explain() == [
        "declared (eu_city): (Lyon, in_eu_state, the EU)",
        "  fact: (Lyon, part_of, France)",
        "  fact: (France, member_of, the EU)",
    ]
    assert ("Geneva", "in_eu_state", "the EU") not in derived  # Switzerland is no member
    asked = {q.text: q.expected for q in questions(base, knowledge)}
    assert asked["Is it true that Lyon is in an EU member state the EU?"] == "yes"


def test_a_rule_may_introduce_its_relation_with_its_phrasing():
    text = GEO.replace(
        "  in_eu_state: {type: passive, phrase: in an EU member state, negation: not in an EU "
        "member state}\n",
        "",
    ) + RULE.replace(
        "    then: [?city, in_eu_state, the EU]\n",
        "    then: [?city, in_eu_state, the EU]\n"
        "    relation: {type: passive, phrase: in an EU member state of,"
        " negation: not in an EU member state of}\n",
    )
    base = parse_facts(text)
    assert base.relations["in_eu_state"].phrase == "in an EU member state of"
    texts = {q.text for q in questions(base, derive(base))}
    assert "Is it true that Lyon is in an EU member state of the EU?" in texts


def test_declared_rules_chain_with_the_built_in_ones_and_constants_match_exactly():
    text = """relations:
  belongs_to: {type: active, phrase: belongs to, negation: does not belong to, transitive: true}
  contraindicated_in: {type: passive, phrase: contraindicated in, negation: not contraindicated in,
                       inverse: rules_out}
  rules_out: {type: active, phrase: rules out, negation: does not rule out}
facts:
  - [ketoprofen, belongs_to, the NSAID class]
  - [the NSAID class, belongs_to, the painkiller class]
  - [the painkiller class, contraindicated_in, nothing in particular]
  - [the NSAID class, contraindicated_in, late pregnancy]
rules:
  - if: [[?drug, belongs_to, ?class], [?class, contraindicated_in, late pregnancy]]
    then: [?drug, contraindicated_in, late pregnancy]
"""
    knowledge = derive(parse_facts(text))
    derived = {d.triple: d.rule for d in knowledge.derived if d.holds}
    assert derived[("ketoprofen", "contraindicated_in", "late pregnancy")] == "declared"
    assert derived[("late pregnancy", "rules_out", "ketoprofen")] == "composite"
    assert ("ketoprofen", "contraindicated_in", "nothing in particular") not in derived
    assert ("the NSAID class", "contraindicated_in", "late pregnancy") not in derived  # a fact


def test_closed_world_asks_every_other_pairing_of_a_complete_relation_as_false():
    base = parse_facts(GEO)
    knowledge = derive(base)
    false = {d.triple: d for d in knowledge.derived if d.rule == "closed_world"}
    assert all(not d.holds for d in false.values())
    # symmetric and complete: any two of its entities, both ways round
    borders = [frozenset((s, o)) for s, r, o in false if r == "borders"]
    assert len(borders) == 2 * len(set(borders))
    assert set(borders) == {
        frozenset(p) for p in [("France", "Portugal"), ("Spain", "Switzerland"),
                               ("Portugal", "Switzerland")]
    }  # fmt: skip
    # not symmetric: each subject with each other object of the relation
    flows = {(s, o) for s, r, o in false if r == "flows_through"}
    assert flows == {("the Danube", "Switzerland"), ("the Danube", "France"),
                     ("the Rhine", "Austria")}  # fmt: skip
    danube = false[("the Danube", "flows_through", "France")].derivation
    assert danube.explain() == [
        "closed_world (complete relation): not (the Danube, flows_through, France)",
        "  fact: (the Danube, flows_through, Austria)",
    ]
    texts = {q.text: q.expected for q in questions(base, knowledge)}
    assert texts["Is it true that the Danube flows through France?"] == "no"
    assert texts[
        "The Danube does not flow through France. Please judge the truthfulness of this statement."
    ] == "yes"  # fmt: skip


def test_closed_world_never_asks_a_triple_true_through_a_chain_longer_than_the_depth_bound():
    text = """relations:
  part_of: {type: passive, phrase: part of, negation: not part of, transitive: true,
            complete: true}
facts:
  - [a, part_of, b]
  - [b, part_of, c]
  - [c, part_of, d]
  - [d, part_of, e]
  - [e, part_of, f]
"""
    base = parse_facts(text)
    knowledge = derive(base, max_depth=1)
    assert ("a", "part_of", "f") not in {d.triple for d in knowledge.derived if d.holds}
    assert ("a", "part_of", "f") in closure(base)
    false = {d.triple for d in knowledge.derived if d.rule == "closed_world"}
    assert ("a", "part_of", "f") not in false
    assert ("f", "part_of", "a") not in false  # f is no subject of part_of: not type-consistent
    assert ("c", "part_of", "b") in false  # reversed, both type-consistent
    assert all(t not in closure(base) for t in false)


def test_asymmetric_relations_get_reversed_questions_and_contradictions_are_refused():
    text = """relations:
  parent_of: {type: passive, phrase: the parent of, negation: not the parent of, asymmetric: true}
facts:
  - [Ann, parent_of, Bob]
"""
    knowledge = derive(parse_facts(text))
    false = [d for d in knowledge.derived if d.rule == "closed_world"]
    assert [d.triple for d in false] == [("Bob", "parent_of", "Ann")]
    assert (
        false[0].derivation.explain()[0] == "closed_world (asymmetric): not (Bob, parent_of, Ann)"
    )
    with pytest.raises(FactsError, match="asymmetric but holds both ways between 'Ann' and 'Bob'"):
        derive(parse_facts(text + "  - [Bob, parent_of, Ann]\n"))
    with pytest.raises(FactsError, match="both symmetric and asymmetric"):
        parse_facts(text.replace("asymmetric: true", "asymmetric: true, symmetric: true"))


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("  - if: [[?c, part_of, ?k]]\n    then: [?c, in_eu_state, ?z]\n",
         r"rules\.0\.then: variable \?z of 'then' is bound by no 'if' pattern .*\(line 21\)"),
        ("  - if:\n      - [?c, part_of, ?k]\n      - [?k, located_in, ?z]\n"
         "    then: [?c, in_eu_state, ?z]\n",
         r"rules\.0\.if\.1\.relation: unknown relation 'located_in' \(line 22\)"),
        ("  - if: [[?c, part_of, ?k]]\n    then: [?c, near, ?k]\n",
         r"rules\.0\.then\.relation: unknown relation 'near': declare it .*\(line 21\)"),
        ("  - if: [[?c, part_of, ?k]]\n    then: [?c, part_of, ?k]\n",
         r"rules\.0\.then: the rule concludes one of its own premises.*\(line 21\)"),
        ("  - if: [[?c, part_of, ?k], [?c, r1, ?k]]\n    then: [?c, r2, ?k]\n"
         "    relation: {type: active, phrase: r2, negation: not r2}\n"
         "  - if: [[?c, r2, ?k]]\n    then: [?c, r1, ?k]\n"
         "    relation: {type: active, phrase: r1, negation: not r1}\n",
         r"rules\.0: rule 1 never fires: 'r1' holds only through rules that need 'r2'.*"
         r"\(line 20\)"),
        ("  - if: [[?c, ?rel, ?k]]\n    then: [?c, part_of, ?k]\n",
         r"rules\.0\.if\.0: .*must be a relation name, not a variable.*\(line 20\)"),
        ("  - if: [[?c, part_of]]\n    then: [?c, part_of, ?k]\n",
         r"rules\.0\.if\.0: .*\[subject, relation, object\].*\(line 20\)"),
        ("  - if: [[?c, part_of, ?k]]\n    then: [?c, borders, ?k]\n"
         "    relation: {type: active, phrase: is next to, negation: is not next to}\n",
         r"rules\.0\.relation: relation 'borders' is already in the catalogue.*\(line 22\)"),
    ],
)  # fmt: skip
def test_a_bad_rule_is_one_line_with_its_line_number(rule: str, message: str):
    with pytest.raises(FactsError, match=message) as caught:
        parse_facts(GEO + "rules:\n" + rule, "geo.yaml")
    assert "\n" not in str(caught.value) and str(caught.value).startswith("geo.yaml: ")


def test_rules_in_json_lines_files():
    from guardrail.probe.facts import parse_jsonl_facts

    text = (
        '{"relation": "part_of", "type": "passive", "phrase": "part of", '
        '"negation": "not part of"}\n'
        '{"relation": "member_of", "type": "passive", "phrase": "a member of", '
        '"negation": "not a member of"}\n'
        '["Lyon", "part_of", "France"]\n["France", "member_of", "the EU"]\n'
        '{"if": [["?c", "part_of", "?k"], ["?k", "member_of", "?u"]], "then": ["?c", "in", "?u"],'
        ' "relation": {"type": "passive", "phrase": "in", "negation": "not in"}}\n'
    )
    base = parse_jsonl_facts(text)
    assert ("Lyon", "in", "the EU") in closure(base)
    bad = text.replace('"then": ["?c", "in", "?u"]', '"then": ["?c", "in", "?z"]')
    with pytest.raises(FactsError, match=r"rules\.0\.then: variable \?z .*\(line 5\)"):
        parse_jsonl_facts(bad, "geo.jsonl")
