"""The worked example (examples/probe): enough questions, every expected answer entailed by
the engine (or, for closed-world questions, not entailed), and the example chatbot's wrong
statements caught."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import clingo

from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import load_facts
from guardrail.probe.reasoning import _quote, program
from guardrail.probe.run import Prober, plan

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "probe" / "healthcare.yaml"


def entailed(base, triple, depth: int = 3) -> bool:
    """Ask clingo itself whether ``triple`` follows from the fact file and the rules."""
    s, r, o = (_quote(x) for x in triple)
    control = clingo.Control(["--warn=none"])
    goal = f"goal :- d(t({s},{r},{o}), _).\n:- not goal.\n"
    control.add("base", [], program(base, depth) + goal)
    control.ground([("base", [])])
    return bool(control.solve().satisfiable)


def test_five_times_as_many_questions_as_triples_each_answer_entailed():
    base = load_facts(EXAMPLE)
    asked = plan(base)
    assert 25 <= len(base.facts) <= 35
    assert len(asked) >= 5 * len(base.facts)
    assert {q.rule for q in asked} == {
        "fact", "symmetric", "inverse", "transitive", "declared", "composite", "negation",
        "closed_world",
    }  # fmt: skip
    for question in asked:
        # every question is about a triple the engine entails (closed world: one it does not
        # entail, at any depth); it is asked as itself (template, synonym: yes, or no when the
        # triple is false) or with the opposite meaning (mutation, negation)
        holds = question.rule != "closed_world"
        assert entailed(base, question.triple, 12) == holds, question.text
        positive = question.form in ("template", "synonym")
        assert question.expected == ("yes" if positive == holds else "no"), question.text
    assert not entailed(base, ("ibuprofen", "belongs_to", "the opioid class"))
    # the declared rule chains two relations: ketoprofen's contraindication comes from its class
    declared = {q.triple for q in asked if q.rule == "declared"}
    assert ("ketoprofen", "contraindicated_in", "the third trimester of pregnancy") in declared
    # the complete relation: every other group/benefit pairing of eligible_for is asked as false
    eligible = [f for f in base.facts if f.relation == "eligible_for"]
    groups = {f.subject for f in eligible}
    benefits = {f.object for f in eligible}
    false = {q.triple for q in asked if q.rule == "closed_world"}
    assert len(false) == len(groups) * len(benefits) - len(eligible)


def test_the_example_chatbot_is_caught_on_each_of_its_wrong_statements():
    spec = importlib.util.spec_from_file_location(
        "example_chatbot", EXAMPLE.with_name("chatbot.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    base = load_facts(EXAMPLE)
    prober = Prober(module.answer, TripleExtractor(OfflineExtractor(), base.relations))
    records = asyncio.run(prober.run(plan(base))).records
    wrong = [
        ("ibuprofen", "contraindicated_in", "the third trimester of pregnancy"),
        ("lisinopril", "contraindicated_in", "pregnancy"),
        ("people aged 60 and over", "eligible_for", "free prescriptions"),
    ]
    for triple in wrong:
        hits = [r for r in records if tuple(r.triple) == triple and r.hallucination]
        assert hits, triple
    # it cannot chain facts: the transitive questions expose it
    assert any(r.hallucination for r in records if r.rule == "transitive")
    assert not any(r.hallucination for r in records if r.relation == "interacts_with")
