"""Synthetic pairs for the encoder verifier, and the cut search over MetaRAG's aggregation."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from guardrail.judges.local.encoder import EncoderCutoffs
from guardrail.judges.local.verify import Support
from guardrail.models import Relation
from guardrail.training.encoder_data import (
    CONTRADICTED,
    SUPPORTED,
    UNSUPPORTED,
    Builder,
    build,
    swap_name,
    swap_number,
)
from guardrail.training.encoder_tune import FactoidRecord, RowRecord, evaluate, tune

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


def _record(label: int, p_syn: float, p_ant: float) -> RowRecord:
    """One answer with one factoid: k=2 synonym and antonym variants with given probabilities."""
    syn = (p_syn, 0.0, 1 - p_syn)
    ant = (p_ant, 1 - p_ant, 0.0)
    variants = [(Relation.SYNONYM, syn)] * 2 + [(Relation.ANTONYM, ant)] * 2
    factoid = FactoidRecord([(0, 10)], syn, variants)  # type: ignore[arg-type]
    return RowRecord(f"r{label}{p_syn}", "qa", "g", label, [(0, 10)] if label else [], [factoid])


def test_tune_finds_the_cut_that_separates_the_answers():
    records = [_record(0, p, 0.1) for p in (0.7, 0.8, 0.9)] + [
        _record(1, p, 0.1) for p in (0.2, 0.3, 0.4)
    ]
    cuts, fit = tune(records)
    assert fit["metarag_f1"] == 1.0 and fit["rt4chart_f1"] == 1.0
    assert 0.4 < cuts.support <= 0.7
    bad = evaluate(records, EncoderCutoffs(support=0.95, refute=1.01))
    assert bad.f1 < 1.0


def test_rules_outcomes_are_kept_for_unreadable_statements():
    r = _record(1, 0.9, 0.1)
    r.factoids[0].variants = [(Relation.SYNONYM, Support.UNKNOWN)] * 4
    assert evaluate([r], EncoderCutoffs()).f1 == 1.0  # NOT SURE everywhere: score 0.5, flagged


def test_write_cuts_keeps_the_rest_of_the_model_file(tmp_path: Path):
    from guardrail.training.encoder_tune import write_cuts

    spec = {"format": "guardrail-encoder/1", "thresholds": {}, "meta": {"pairs": 4}}
    (tmp_path / "encoder.json").write_text(json.dumps(spec))
    write_cuts(tmp_path, EncoderCutoffs(0.9, 0.8, 0.4), {"rows": 3})
    out = json.loads((tmp_path / "encoder.json").read_text())
    assert out["thresholds"] == {"support": 0.9, "refute": 0.8, "entailed": 0.4}
    assert out["meta"] == {"pairs": 4, "tuned_on": {"rows": 3}}
    assert out["format"] == "guardrail-encoder/1"
