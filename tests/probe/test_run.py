"""Probing scripted chatbots: the targets (every seeded wrong fact caught, no correct reply
called a hallucination), an always-"yes" bot, failures and concurrency."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from guardrail.exceptions import ConfigError
from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import FactBase, Triple, load_facts
from guardrail.probe.oracles import HALLUCINATIONS
from guardrail.probe.run import Prober, ProbeRecord, plan, progress_file, question_id
from guardrail.probe.scripted import BeliefChatbot, question_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "probe" / "healthcare.yaml"
#: true fact -> the wrong belief the scripted chatbot holds instead
WRONG = {
    ("the NSAID class", "contraindicated_in", "the third trimester of pregnancy"): (
        "the NSAID class", "contraindicated_in", "the first trimester of pregnancy"
    ),
    # (not "the opioid class": that one belongs to the painkiller class, so every conclusion
    # would still be true and no question could tell)
    ("the NSAID class", "belongs_to", "the painkiller class"): (
        "the NSAID class", "belongs_to", "the ACE inhibitor class"
    ),
    ("warfarin", "interacts_with", "aspirin"): ("warfarin", "interacts_with", "paracetamol"),
    ("pregnant women", "eligible_for", "free prescriptions"): (
        "pregnant women", "eligible_for", "a work permit"
    ),
}  # fmt: skip
#: wrong beliefs added to the true ones, about the complete relation (eligible_for)
ADDED = [
    ("city residents", "eligible_for", "free prescriptions"),
    ("new mothers", "eligible_for", "a maternity allowance"),
    ("students holding a student visa", "eligible_for", "a work permit"),
]


def seeded(truth: FactBase, wrong: dict, added: list | tuple = ()) -> FactBase:
    facts = [Triple.model_validate(list(wrong.get(f.key(), f.key()))) for f in truth.facts]
    facts += [Triple.model_validate(list(t)) for t in added]
    return truth.model_copy(update={"facts": facts})


def probe(truth: FactBase, chatbot, *, jobs: int = 1, asked=None) -> list[ProbeRecord]:
    asked = asked if asked is not None else plan(truth)
    prober = Prober(chatbot, TripleExtractor(OfflineExtractor(), truth.relations), threads=jobs > 1)
    return asyncio.run(prober.run(asked, jobs=jobs)).records


def test_every_seeded_wrong_fact_is_caught_and_no_correct_reply_is_a_hallucination():
    truth = load_facts(EXAMPLE)
    asked = plan(truth)
    records = probe(truth, BeliefChatbot(seeded(truth, WRONG), asked), asked=asked)
    by_id = {r.id: r for r in records}
    for fact in WRONG:
        catching = [
            q for q in asked
            if fact in q.derivation.sources() and by_id[question_id(q)].hallucination
        ]  # fmt: skip
        assert catching, f"wrong belief about {fact} not caught"
    untouched = [q for q in asked if not set(WRONG) & set(q.derivation.sources())]
    assert len(untouched) > len(asked) / 2
    assert {by_id[question_id(q)].outcome for q in untouched} == {"correct"}
    # the replies built on wrong beliefs name entities the ground truth does not have
    ibuprofen = next(
        r for r in records
        if r.question == "Is it true that ibuprofen is contraindicated in the third trimester of "
        "pregnancy?"
    )  # fmt: skip
    assert ibuprofen.outcome == "both" and ibuprofen.conflicts


def test_every_added_wrong_belief_about_a_complete_relation_is_caught():
    truth = load_facts(EXAMPLE)
    asked = plan(truth)
    bot = BeliefChatbot(seeded(truth, WRONG, ADDED), asked)
    records = probe(truth, bot, asked=asked)
    for triple in ADDED:
        caught = [r for r in records if tuple(r.triple) == triple and r.hallucination]
        assert caught, f"added belief {triple} not caught"
        assert {r.rule for r in caught} == {"closed_world"}
    # without the closed-world questions none of them could be caught: every other question
    # is about a true triple, which the added beliefs leave true
    others = [r for r in records if r.rule != "closed_world" and r.hallucination]
    assert not any(set(map(tuple, [r.triple])) & set(ADDED) for r in others)


def test_a_truthful_chatbot_has_no_hallucination():
    truth = load_facts(EXAMPLE)
    asked = plan(truth)
    records = probe(truth, BeliefChatbot(truth, asked), asked=asked)
    assert {r.outcome for r in records} == {"correct"}
    assert {r.rule for r in records} >= {"closed_world", "declared"}


def test_an_always_yes_chatbot_is_caught_on_every_negation_question():
    truth = load_facts(EXAMPLE)
    records = probe(truth, lambda prompt: "Yes.\n1. Everything is fine.")
    negations = [r for r in records if r.rule == "negation"]
    known = {tuple(r.triple) for r in records if r.rule not in ("negation", "closed_world")}
    assert len(negations) == len(known)  # every known triple, negated
    assert all(r.outcome in HALLUCINATIONS for r in negations)
    assert all(r.outcome == "correct" for r in records if r.expected == "yes")
    closed = [r for r in records if r.rule == "closed_world" and r.expected == "no"]
    assert closed and all(r.outcome in HALLUCINATIONS for r in closed)


def test_replies_are_read_in_any_answer_function_shape():
    truth = load_facts(EXAMPLE)
    asked = plan(truth)[:3]
    shapes = [
        lambda p: ("Yes.", ["a passage"]),
        lambda p: {"answer": "Yes.", "contexts": []},
        lambda p: "Yes.",
    ]
    for shape in shapes:
        assert [r.verdict for r in probe(truth, shape, asked=asked)] == ["yes"] * 3


def test_async_chatbots_and_jobs_give_the_same_records():
    truth = load_facts(EXAMPLE)
    asked = plan(truth)
    bot = BeliefChatbot(seeded(truth, WRONG), asked)

    async def async_bot(prompt: str) -> str:
        await asyncio.sleep(0)
        return bot(prompt)

    one = probe(truth, bot, asked=asked)
    many = probe(truth, async_bot, jobs=4, asked=asked)
    threads = probe(truth, bot, jobs=3, asked=asked)
    strip = [r.model_dump(exclude={"seconds"}) for r in one]
    assert strip == [r.model_dump(exclude={"seconds"}) for r in many]
    assert strip == [r.model_dump(exclude={"seconds"}) for r in threads]


def test_a_raising_chatbot_is_recorded_and_asked_again_on_resume(tmp_path):
    truth = load_facts(EXAMPLE)
    asked = plan(truth)[:6]
    calls: list[str] = []

    def flaky(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) % 2 == 0:
            raise RuntimeError("backend down")
        return "Yes."

    path = tmp_path / "progress.jsonl"
    prober = Prober(flaky, TripleExtractor(OfflineExtractor(), truth.relations))
    first = asyncio.run(prober.run(asked, progress_file=progress_file(path, "x:y", "local")))
    assert first.failed == 3 and {r.error for r in first.records if not r.ok} == {
        "RuntimeError: backend down"
    }
    second = asyncio.run(prober.run(asked, progress_file=progress_file(path, "x:y", "local")))
    assert (second.resumed, second.asked) == (3, 3)
    with pytest.raises(ConfigError, match="this run uses"):
        asyncio.run(prober.run(asked, progress_file=progress_file(path, "other:bot", "local")))


def test_a_chatbot_returning_a_wrong_shape_stops_the_probe():
    truth = load_facts(EXAMPLE)
    with pytest.raises(ConfigError, match="returned a int"):
        probe(truth, lambda prompt: 42, asked=plan(truth)[:2])


def test_plan_filters_rules_and_refuses_bad_options():
    truth = load_facts(EXAMPLE)
    assert {q.rule for q in plan(truth, rules=["transitive", "negation"])} == {
        "transitive",
        "negation",
    }
    with pytest.raises(ConfigError, match="unknown rule 'cyclic'"):
        plan(truth, rules=["cyclic"])
    with pytest.raises(ConfigError, match="--limit"):
        plan(truth, limit=0)


def test_limit_samples_across_rule_types_seeded():
    truth = load_facts(EXAMPLE)
    everything = plan(truth)
    rules = {q.rule for q in everything}
    sampled = plan(truth, limit=40)
    assert len(sampled) == 40
    assert {q.rule for q in sampled} == rules  # every rule type is represented
    counts = {r: sum(1 for q in sampled if q.rule == r) for r in rules}
    available = {r: sum(1 for q in everything if q.rule == r) for r in rules}
    share = 40 // len(rules)
    # each type gets an equal share, or all it has when it has fewer
    assert all(counts[r] >= min(share, available[r]) for r in rules), counts
    assert [q.text for q in plan(truth, limit=40)] == [q.text for q in sampled]  # seeded
    assert [q.text for q in plan(truth, limit=40, seed=1)] != [q.text for q in sampled]
    order = {q.text: i for i, q in enumerate(everything)}
    assert [order[q.text] for q in sampled] == sorted(order[q.text] for q in sampled)
    assert len(plan(truth, limit=10_000)) == len(everything)
    smaller = {q.text for q in plan(truth, limit=15)}
    assert smaller < {q.text for q in sampled}  # samples nest: resuming with a larger limit


def test_scripted_bot_reads_the_question_out_of_the_prompt():
    from guardrail.probe.prompt import render

    assert question_of(render("Is it true that a is b")) == "Is it true that a is b?"


def test_a_failing_judge_is_an_error_record_not_a_crash():
    from guardrail.exceptions import JudgeRequestError
    from guardrail.judges.scripted import ScriptedJudge

    def refuse(request):
        raise JudgeRequestError("bad request")

    truth = load_facts(EXAMPLE)
    prober = Prober(
        lambda p: "No.\n1. Something else.", TripleExtractor(ScriptedJudge(refuse), truth.relations)
    )
    asked = [q for q in plan(truth) if q.expected == "yes"][:2]  # "No." is wrong: read it
    records = asyncio.run(prober.run(asked)).records
    assert [(r.ok, r.outcome) for r in records] == [(False, "error")] * 2
    assert records[0].error.startswith("judge: ") and records[0].reply.startswith("No.")


def test_a_parroting_reply_is_recorded_unparsed_with_the_reason():
    from guardrail.probe.prompt import PROMPT

    example = PROMPT[PROMPT.index("Supposed Response:") : PROMPT.index("Query:")]
    truth = load_facts(EXAMPLE)
    records = probe(truth, lambda prompt: example, asked=plan(truth)[:2])
    assert [(r.outcome, r.verdict) for r in records] == [("unparsed", None)] * 2
    assert records[0].note == "the reply only repeats the prompt's own text"
    assert not any(r.hallucination for r in records)
