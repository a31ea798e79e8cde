"""Training pairs for the encoder verifier (synthetic and labelled) and its stack inputs."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from guardrail.evaluation.datasets import EvalRow
from guardrail.judges.local.features import DENSE_NAMES, STACK_NAMES
from guardrail.judges.local.trained import VerifierModel
from guardrail.training.encoder_data import (
    CONTRADICTED,
    SUPPORTED,
    UNSUPPORTED,
    Builder,
    build,
    labelled_examples,
    swap_name,
    swap_number,
)
from guardrail.training.encoder_stack import (
    contexts,
    encoder_fold,
    factoid_pairs,
    labelled,
    load_probs,
    save_probs,
    stacked,
)
from guardrail.training.readings import encoder_window, reader
from guardrail.training.verifier import collect, fit

DOC = (
    "The bridge over the Tagus in Lisbon opened in 1966 after four years of work. "
    "It is 2,277 metres long and carries six lanes of traffic. "
    "Engineers from Portugal and the United States designed it. "
    "A railway deck was added in 1999."
)
SUMMARY = "The Lisbon bridge opened in 1966. It carries six lanes of traffic and a railway deck."
OTHER_DOC = "Heavy rain flooded the streets of Manchester on Tuesday, the council said."
OTHER_SUMMARY = "Rain flooded Manchester streets on Tuesday according to the council."


def test_number_swap_takes_another_number_of_the_source():
    rng = random.Random(0)
    out = swap_number("The bridge opened in 1966.", DOC, rng)
    assert out is not None and out != "The bridge opened in 1966."
    assert any(n in out for n in ("2,277", "1999"))
    assert swap_number("No digits here.", DOC, rng) is None


def test_number_swap_shifts_when_the_source_has_no_other_number():
    out = swap_number("It took 4 years.", "It took 4 years.", random.Random(1))
    assert out is not None and out != "It took 4 years." and out.endswith(" years.")


def test_name_swap_changes_a_non_initial_name():
    out = swap_name("Work in Lisbon began early.", ["Portugal", "Lisbon"], random.Random(0))
    assert out == "Work in Portugal began early."
    assert swap_name("Lisbon is big.", ["Portugal"], random.Random(0)) is None  # initial word


def test_summary_examples_have_every_kind_with_its_label():
    builder = Builder(seed=3)
    kinds: dict[str, set[int]] = {}
    for seed in range(6):
        builder.rng.seed(seed)
        for ex in builder.summary_examples(DOC, SUMMARY, OTHER_SUMMARY, OTHER_DOC):
            kinds.setdefault(ex.kind, set()).add(ex.label)
            assert ex.window and len(ex.window.split()) <= 40
    assert kinds["summary"] == {SUPPORTED} and kinds["synonym"] == {SUPPORTED}
    assert kinds["antonym"] == {CONTRADICTED} and kinds["number"] == {CONTRADICTED}
    assert kinds["other-summary"] == {UNSUPPORTED} and kinds["appended"] == {UNSUPPORTED}


def test_build_is_deterministic(tmp_path: Path):
    (tmp_path / "halueval").mkdir()
    summ = [
        {"context": DOC, "answer": SUMMARY, "label": 0},
        {"context": DOC, "answer": "The bridge collapsed.", "label": 1},
        {"context": OTHER_DOC, "answer": OTHER_SUMMARY, "label": 0},
    ]
    qa = [
        {"context": DOC, "answer": "The bridge was designed by engineers from France.", "label": 1}
    ]
    for name, rows in (("halueval_summarization_4k.jsonl", summ), ("halueval_qa.jsonl", qa)):
        (tmp_path / "halueval" / name).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    first = build(tmp_path, summaries=10, qa=10, seed=5, progress=False)
    assert first == build(tmp_path, summaries=10, qa=10, seed=5, progress=False)
    counts = Counter(e.kind for e in first)
    assert counts["qa-hallucinated"] == 1 and counts["summary"] >= 2
    assert not any("collapsed" in e.statement for e in first)  # hallucinated summaries unused


def test_labelled_examples_keep_the_label_and_perturb_only_supported_factoids():
    judge = reader()
    facts = [
        ("The bridge in Lisbon opened in 1966.", False),
        ("The bridge was painted red in 1970.", True),
    ]
    out = labelled_examples(facts, DOC, judge, random.Random(0))
    own = [e for e in out if e.kind == "labelled"]
    assert [(e.statement, e.label) for e in own] == [
        (facts[0][0], SUPPORTED),
        (facts[1][0], UNSUPPORTED),
    ]
    swapped = [e for e in out if e.kind != "labelled"]
    assert swapped and all(e.label == CONTRADICTED for e in swapped)
    # only the supported factoid is perturbed, and each perturbation changes it
    assert all("painted" not in e.statement and e.statement != facts[0][0] for e in swapped)
    assert {e.kind for e in swapped} == {"labelled-number", "labelled-name"}
    assert all(e.window == encoder_window(judge, e.statement, DOC) for e in out)


def _rows() -> list[EvalRow]:
    answers = [
        ("The bridge opened in 1966 and carries six lanes.", 0, ()),
        ("The bridge opened in 1966 and was built by French engineers.", 1, ((31, 61),)),
    ]
    return [
        EvalRow(
            id=f"r{i}",
            task="qa",
            question="Tell me about the bridge.",
            context=DOC,
            answer=a,
            label=label,
            spans=tuple(spans),
        )
        for i, (a, label, spans) in enumerate(answers)
    ]


def test_stacked_records_carry_the_factoid_probabilities_into_its_variants(tmp_path: Path):
    rows = _rows()
    records = collect(rows)
    judge = reader()
    pairs = factoid_pairs(records, contexts(rows), judge)
    assert [len(v) for v in pairs.values()] == [len(r.factoids) for r in records]
    probs = {r.id: [(0.1 * i, 0.2, 0.7 - 0.1 * i) for i in range(len(r.factoids))] for r in records}
    save_probs(tmp_path / "oof.json", probs, {"folds": 2})
    loaded, meta = load_probs(tmp_path / "oof.json")
    assert loaded == probs and meta == {"folds": 2}
    out = stacked(records, loaded)
    for before, after in zip(records, out, strict=True):
        for i, (f0, f1) in enumerate(zip(before.factoids, after.factoids, strict=True)):
            assert f1.own.features.dense[: len(DENSE_NAMES)] == f0.own.features.dense
            assert f1.own.features.dense[len(DENSE_NAMES) :] == probs[before.id][i]
            assert all(s.features.dense[-3:] == probs[before.id][i] for _, s in f1.variants)
    # a model fitted on stacked records names the encoder features and reads them back
    data = fit(out * 20, "logistic")
    assert data["dense_names"] == list(STACK_NAMES)
    assert VerifierModel(data).stacked
    with pytest.raises(ValueError, match="probabilities"):
        stacked(records, {r.id: [] for r in records})


def test_labelled_examples_per_row_are_deterministic():
    rows = _rows()
    records = collect(rows)
    judge = reader()
    first = labelled(records, contexts(rows), judge, seed=3)
    assert first == labelled(records, contexts(rows), judge, seed=3)
    assert {e.label for e in first["r1"]} >= {UNSUPPORTED, SUPPORTED}


def test_encoder_folds_are_grouped_and_stable():
    folds = {g: encoder_fold(g, 2) for g in (f"doc{i}" for i in range(40))}
    assert set(folds.values()) == {0, 1}
    assert folds == {g: encoder_fold(g, 2) for g in folds}
