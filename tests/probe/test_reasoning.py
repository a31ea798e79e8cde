"""The probe's fact files and its logic engine (clingo): each rule derives exactly what it
should."""

from __future__ import annotations

import pytest

from guardrail.exceptions import ConfigError
from guardrail.probe.facts import FactsError, parse_facts
from guardrail.probe.reasoning import derive, program

CATALOGUE = """
relations:
  part_of: {type: passive, phrase: part of, negation: not part of, transitive: true,
            inverse: contains}
  contains: {type: active, phrase: contains, negation: does not contain}
  interacts_with: {type: active, phrase: interacts with, negation: does not interact with,
                   symmetric: true}
  treats: {type: active, phrase: treats, negation: does not treat}
"""


def knowledge(facts: str, max_depth: int = 3):
    return derive(parse_facts(CATALOGUE + "facts:\n" + facts), max_depth=max_depth)


def positives(k) -> dict[tuple[str, str, str], str]:
    return {d.triple: d.rule for d in k.derived if d.holds}


def test_symmetric_rule_swaps_subject_and_object_and_nothing_else():
    k = knowledge("  - [warfarin, interacts_with, ibuprofen]\n")
    assert positives(k) == {("ibuprofen", "interacts_with", "warfarin"): "symmetric"}


def test_inverse_rule_works_in_both_directions():
    k = knowledge("  - [a, part_of, b]\n  - [box, contains, key]\n")
    assert positives(k) == {("b", "contains", "a"): "inverse", ("key", "part_of", "box"): "inverse"}


def test_a_relation_without_properties_derives_nothing():
    k = knowledge("  - [paracetamol, treats, back pain]\n  - [back pain, treats, x]\n")
    assert positives(k) == {}


def test_transitive_chain_and_composite_rules():
    k = knowledge("  - [a, part_of, b]\n  - [b, part_of, c]\n  - [c, part_of, d]\n")
    derived = positives(k)
    assert {t for t, r in derived.items() if r == "transitive"} == {
        ("a", "part_of", "c"),
        ("b", "part_of", "d"),
        ("a", "part_of", "d"),  # a chain of two transitive steps is still transitive
    }
    assert {t for t, r in derived.items() if r == "composite"} == {
        ("c", "contains", "a"),  # transitive, then inverse
        ("d", "contains", "b"),
        ("d", "contains", "a"),
    }
    long = next(d for d in k.derived if d.triple == ("d", "contains", "a"))
    assert long.derivation.sources() == [
        ("a", "part_of", "b"),
        ("b", "part_of", "c"),
        ("c", "part_of", "d"),
    ]
    assert long.derivation.rules() == {"transitive", "inverse"}
    assert ("a", "part_of", "a") not in derived  # no reflexive conclusions


def test_depth_bound_limits_chains():
    k = knowledge("  - [a, part_of, b]\n  - [b, part_of, c]\n  - [c, part_of, d]\n", max_depth=1)
    assert ("a", "part_of", "d") not in positives(k)
    assert ("a", "part_of", "c") in positives(k)


def test_negation_makes_every_known_triple_false_when_negated():
    k = knowledge("  - [warfarin, interacts_with, ibuprofen]\n")
    negations = {d.triple for d in k.derived if d.rule == "negation"}
    assert negations == {
        ("warfarin", "interacts_with", "ibuprofen"),
        ("ibuprofen", "interacts_with", "warfarin"),
    }
    assert all(not d.holds for d in k.derived if d.rule == "negation")


def test_quotes_and_backslashes_in_names_reach_the_engine_intact():
    name = 'drug "X" \\ forte'
    k = knowledge(f"  - ['{name}', interacts_with, y]\n")
    assert ("y", "interacts_with", name) in positives(k)
    assert "#const maxd=3." in program(parse_facts(CATALOGUE + "facts: [[a, treats, b]]"), 3)


OK = "  - [x, treats, y]\n"  # line 10; the next fact is on line 11


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (OK + "  - [a, cures, b]\n", r"facts\.1\.relation: unknown relation 'cures'.*\(line 11\)"),
        (OK + "  - [a, treats]\n", r"facts\.1: .*\[subject, relation, object\].*\(line 11\)"),
        (OK + "  - [a, treats,\n     '']\n", r"facts\.1\.object.*\(line 12\)"),
    ],
)
def test_bad_fact_files_name_the_key_and_line(facts: str, message: str):
    with pytest.raises(FactsError, match=message):
        parse_facts(CATALOGUE + "facts:\n" + facts)


def test_unknown_inverse_is_refused():
    text = (
        "relations:\n  r: {type: noun, phrase: r, negation: not r, inverse: q}\n"
        "facts: [[a, r, b]]\n"
    )
    with pytest.raises(FactsError, match=r"relations\.r\.inverse: unknown relation 'q' \(line 2\)"):
        parse_facts(text)


def test_without_clingo_the_error_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "clingo", None)  # import clingo now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'guardrail-rag\[probe\]'"):
        knowledge("  - [a, treats, b]\n")
