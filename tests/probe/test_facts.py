"""Fact files in JSON Lines, relation synonyms, and catalogues without facts."""

from __future__ import annotations

import json

import pytest

from guardrail.probe.facts import Catalogue, FactsError, load_facts, parse_jsonl_facts

RELATION = {
    "relation": "treats",
    "type": "active",
    "phrase": "treats",
    "negation": "does not treat",
}


def lines(*objs: object) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def test_jsonl_relations_and_facts_in_both_forms():
    base = parse_jsonl_facts(
        lines(
            RELATION,
            ["aspirin", "treats", "pain"],
            {"subject": "a", "relation": "treats", "object": "b"},
        )
    )
    assert [f.key() for f in base.facts] == [("aspirin", "treats", "pain"), ("a", "treats", "b")]
    assert base.relations["treats"].negation == "does not treat"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            lines(RELATION, ["a", "treats", "b"], ["a", "cures", "b"]),
            r"facts\.1\.relation: unknown relation 'cures'.*\(line 3\)",
        ),
        (lines(RELATION) + "\n" + lines(["a", "treats"]), r"facts\.0: .*\(line 3\)"),
        (
            lines({**RELATION, "type": "verb"}, ["a", "treats", "b"]),
            r"relations\.treats\.type: .*\(line 1\)",
        ),
        (lines(RELATION) + "{not json\n", r"line 2: not JSON"),
        (lines(RELATION, 42), r"line 2: expected a relation or a fact"),
    ],
)
def test_bad_jsonl_names_the_line(text: str, message: str):
    with pytest.raises(FactsError, match=message):
        parse_jsonl_facts(text, "facts.jsonl")


def test_load_picks_the_format_by_suffix_and_reads_a_catalogue(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_text(lines(RELATION, ["a", "treats", "b"]))
    assert len(load_facts(path).facts) == 1
    catalogue = tmp_path / "c.yaml"
    catalogue.write_text(
        "relations:\n  treats: {type: active, phrase: treats, negation: does not treat}\n"
    )
    assert list(load_facts(catalogue, Catalogue).relations) == ["treats"]
    with pytest.raises(FactsError, match=r"facts: .*\(line 1\)"):
        load_facts(catalogue)  # a fact file needs facts
    with pytest.raises(FactsError, match="cannot read"):
        load_facts(tmp_path / "missing.yaml")
