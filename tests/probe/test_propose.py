"""Proposing a fact file from documents, offline: it loads as a fact file, cites its sources,
and uses a given catalogue's names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from guardrail.exceptions import ConfigError
from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import Catalogue, load_facts, parse_facts
from guardrail.probe.propose import guess_relation, propose, write_proposal

DOCS = Path(__file__).resolve().parents[2] / "examples" / "demo_docs"


def proposed(known=None):
    extractor = TripleExtractor(OfflineExtractor(split_subjects=True), known or {})
    proposal = asyncio.run(propose(DOCS, extractor, known))
    return proposal, write_proposal(proposal, folder=DOCS, judge="local")


def test_the_demo_documents_give_a_fact_file_with_sources():
    proposal, text = proposed()
    base = parse_facts(text)  # a person reviews it, then probes with it as it is
    facts = {f.key() for f in base.facts}
    assert ("Ibuprofen", "contraindicated_in", "the third trimester of pregnancy") in facts
    assert ("other NSAIDs", "contraindicated_in", "the third trimester of pregnancy") in facts
    assert ("Asylum seekers", "may_apply_for", "a work permit") in facts
    assert base.relations["contraindicated_in"].negation == "not contraindicated in"
    assert "# pregnancy_medication.md:5: Ibuprofen and other NSAIDs are contraindicated" in text
    assert proposal.files == 4 and len(base.facts) >= 10


def test_a_catalogue_names_the_relations_it_knows(tmp_path):
    catalogue = tmp_path / "catalogue.yaml"
    catalogue.write_text(
        "relations:\n  unsafe_in: {type: passive, phrase: contraindicated in, "
        "negation: not contraindicated in}\n"
    )
    known = load_facts(catalogue, Catalogue).relations
    _, text = proposed(known)
    facts = {f.key() for f in parse_facts(text).facts}
    assert ("Ibuprofen", "unsafe_in", "the third trimester of pregnancy") in facts


@pytest.mark.parametrize(
    ("name", "kind", "negation"),
    [
        ("contraindicated_in", "passive", "not contraindicated in"),
        ("may_apply_for", "active", "may not apply for"),
        ("can_be_borrowed_for", "active", "cannot be borrowed for"),
        ("interacts_with", "active", "does not interact with"),
        ("not_allowed_to", "passive", "allowed to"),
    ],
)
def test_guessed_relations(name, kind, negation):
    relation = guess_relation(name)
    assert (relation.type, relation.negation) == (kind, negation)


def test_not_a_folder(tmp_path):
    extractor = TripleExtractor(OfflineExtractor(), {})
    with pytest.raises(ConfigError, match="not a folder"):
        asyncio.run(propose(tmp_path / "nope", extractor))
    with pytest.raises(ConfigError, match=r"no \.md"):
        asyncio.run(propose(tmp_path, extractor))


def test_an_llm_judge_proposes_through_the_same_request():
    from guardrail.judges.scripted import ScriptedJudge

    def reply(request):
        points = request.inputs["points"]
        n = next(i for i, p in enumerate(points, 1) if p.startswith("Books can be borrowed"))
        return f"{n}. books | loan period | three weeks\n{n}. books | not sold_at | the library"

    judge = ScriptedJudge(reply)
    proposal = asyncio.run(propose(DOCS, TripleExtractor(judge, {})))
    assert len(judge.requests) == 1  # 15 sentences: one batch (up to 20 per request)
    text = write_proposal(proposal, folder=DOCS, judge=judge.name)
    base = parse_facts(text)
    assert {f.key() for f in base.facts} >= {("books", "loan_period", "three weeks")}
    assert base.relations["not_sold_at"].negation == "sold at"
