"""The localizer's training recipe: labels, threshold choice, and a check on real data."""

from __future__ import annotations

import json
import math

import pytest

from guardrail.evaluation.datasets import EvalRow, load_rows
from guardrail.localize import TokenLocalizer
from guardrail.training.localizer import THRESHOLDS, out_of_fold, span_f1, train, word_rows


def row(i: int, answer: str, context: str, spans: tuple[tuple[int, int], ...]) -> EvalRow:
    return EvalRow(
        id=f"r{i}",
        task="qa",
        question="What is it?",
        context=context,
        answer=answer,
        label=int(bool(spans)),
        spans=spans,
        meta={"source_id": f"doc{i}"},
    )


def synthetic(n: int) -> list[EvalRow]:
    """Answers that copy the context except, in half of them, one invented number."""
    rows = []
    for i in range(n):
        context = f"The bridge number {i} is {10 + i} metres long and opened in spring."
        if i % 2:
            answer = f"The bridge number {i} is {500 + i} metres long."
            start = answer.index(str(500 + i))
            rows.append(row(i, answer, context, ((start, start + len(str(500 + i))),)))
        else:
            rows.append(row(i, f"The bridge number {i} is {10 + i} metres long.", context, ()))
    return rows


def test_word_labels_follow_gold_spans_and_unlabelled_positives_are_skipped():
    rows = synthetic(4)
    unlabelled = row(9, "Made up.", "ctx", ())
    unlabelled = EvalRow(**{**unlabelled.__dict__, "label": 1})
    examples = word_rows([*rows, unlabelled])
    assert len(examples) == 4
    second = examples[1]
    flagged = [w.text for w, y in zip(second.words, second.labels, strict=True) if y]
    assert flagged == ["501"]


def test_training_learns_the_invented_number_and_picks_a_grid_threshold(tmp_path):
    """On data where the invented number is the hallucination, OOF span F1 is high."""
    data = train(synthetic(40), folds=4)
    assert data["threshold"] in THRESHOLDS
    assert data["meta"]["out_of_fold_span_f1"] > 0.8
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loc = TokenLocalizer.load(path)
    answer = "The bridge number 7 is 999 metres long."
    [focus] = loc.narrow(answer, "q", ["The bridge number 7 is 17 metres long."], [[(0, 38)]])
    assert [answer[s:e] for s, e in focus] == ["999"]


def test_training_refuses_rows_without_any_word_labels():
    with pytest.raises(ValueError, match="no span-labelled rows"):
        train([EvalRow(**{**row(1, "x", "y", ()).__dict__, "label": 1})])


def test_on_ragtruth_the_learned_words_beat_flagging_whole_answers(shared_data):
    """Grouped out-of-fold: the model's span F1 beats marking every word of every answer."""
    rows = load_rows(shared_data / "ragtruth" / "dev.jsonl", shuffle_seed=0, limit=400)
    examples = word_rows(rows)
    held, probs = out_of_fold(examples, folds=4, seed=0, c=1.0)
    learned = max(span_f1(held, probs, t) for t in (0.1, 0.15, 0.2))
    everything = span_f1(held, [p * 0 + 1 for p in probs], 0.5)
    assert math.isfinite(learned) and learned > everything + 0.05
