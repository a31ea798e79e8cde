"""The eval runner: concurrency, resumable progress files, failed rows, figures from outcomes."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from guardrail.evaluation.datasets import load_rows
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import ProgressFile, ProgressHeader, run_rows
from guardrail.exceptions import ConfigError
from tests.evaluation.fakes import FakeScorer

TINY = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"
ROWS = load_rows(TINY)
BY_ID = {r.id: r for r in ROWS}
# Hand-chosen outputs (see test_summary_figures_hand_computed for the arithmetic).
OUTPUTS = {
    BY_ID["doc1-model-a"].answer: (0.0, []),
    BY_ID["doc1-model-b"].answer: (1.0, [(16, 23)]),
    BY_ID["doc2-model-a"].answer: (0.5, [(0, 35)]),
    BY_ID["doc3-model-a"].answer: (0.5, [(0, 44)]),
    BY_ID["doc3-model-b"].answer: (0.0, []),
    BY_ID["doc4-model-a"].answer: (0.0, []),
}


def header(method: str = "fake", judge: str = "scripted") -> ProgressHeader:
    return ProgressHeader(method=method, judge=judge)


async def test_summary_figures_hand_computed():
    """At 0.5: TP 2, FP 1, FN 1, TN 2; spans TP 7, FP 35+44, FN 19+6; qa perfect."""
    result = await run_rows(ROWS, FakeScorer(OUTPUTS))
    s = summarize(ROWS, result.outcomes, threshold=0.5, threshold_source="test")
    a = s.answer
    assert (a["tp"], a["fp"], a["fn"], a["tn"]) == (2, 1, 1, 2)
    assert a["precision"] == pytest.approx(2 / 3) and a["accuracy"] == pytest.approx(4 / 6)
    sp = s.span
    assert (sp["tp"], sp["fp"], sp["fn"]) == (7, 79, 25)
    assert s.tasks["qa"].answer["f1"] == 1.0
    assert s.tasks["summary"].answer["tp"] == 0
    assert s.n == 6 and s.failed == 0 and s.tuned_on_same_rows is False
    assert s.cost is not None and s.cost.judge_calls_per_answer == 3
    assert s.best_on_same_rows is not None and s.best_on_same_rows.tuned_on_same_rows
    high = summarize(ROWS, result.outcomes, threshold=0.75, threshold_source="test")
    assert (high.answer["tp"], high.answer["fp"]) == (1, 0)
    assert high.span is not None
    assert (high.span["tp"], high.span["fp"], high.span["fn"]) == (7, 0, 25)


async def test_span_block_skips_positive_rows_without_span_labels():
    """A hallucinated row with no gold spans (HaluEval-style) is excluded from span figures."""
    rows = [r if r.id != "doc2-model-a" else type(r)(**{**r.__dict__, "spans": ()}) for r in ROWS]
    result = await run_rows(rows, FakeScorer(OUTPUTS))
    s = summarize(rows, result.outcomes, threshold=0.5, threshold_source="test")
    assert s.span is not None and s.span["excluded"] == 1 and s.span["rows"] == 5
    assert (s.span["tp"], s.span["fp"], s.span["fn"]) == (7, 44, 6)


async def test_rows_run_concurrently_with_jobs():
    """Six rows of 50 ms with --jobs 3 take about two rounds, not six."""
    scorer = FakeScorer(OUTPUTS, latency_s=0.05)
    started = time.perf_counter()
    await run_rows(ROWS, scorer, jobs=3)
    assert time.perf_counter() - started < 6 * 0.05 * 0.8
    assert len(scorer.calls) == 6


async def test_failed_rows_are_counted_recorded_and_retried(tmp_path):
    """A scorer error marks the row failed (counted by the on-error rule); a rerun scores it
    again."""
    bad = BY_ID["doc2-model-a"].answer
    progress = ProgressFile(tmp_path / "p.jsonl", header())
    result = await run_rows(ROWS, FakeScorer(OUTPUTS, fail={bad}), progress_file=progress)
    assert (result.scored, result.failed) == (5, 1)
    s = summarize(ROWS, result.outcomes, threshold=0.5, threshold_source="test")
    assert s.failed == 1 and s.n == 5
    assert [r.model_dump() for r in s.failed_rows] == [
        {"id": "doc2-model-a", "error": "ScoringError: judge unavailable"}
    ]
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert lines[0]["kind"] == "header" and sum(1 for x in lines if x.get("ok") is False) == 1

    again = FakeScorer(OUTPUTS)
    result = await run_rows(ROWS, again, progress_file=progress)
    assert again.calls == [bad]
    assert (result.resumed, result.scored, result.failed) == (5, 1, 0)


async def test_interrupted_run_resumes_without_rescoring(tmp_path):
    """Cancel after k rows; the rerun scores only the remaining rows."""
    path = tmp_path / "progress.jsonl"
    k = 2
    first = FakeScorer(OUTPUTS, latency_s=0.001)  # yields, so the cancel lands mid-row
    finished: list[str] = []

    async def interrupted() -> None:
        task = asyncio.current_task()
        assert task is not None

        def stop_after_k(outcome) -> None:
            finished.append(outcome.id)
            if len(finished) == k:
                task.cancel()

        await run_rows(
            ROWS, first, progress_file=ProgressFile(path, header()), on_outcome=stop_after_k
        )

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(interrupted())
    assert len(first.calls) == k + 1  # the row in flight when cancelled is lost, not recorded

    second = FakeScorer(OUTPUTS)
    result = await run_rows(ROWS, second, progress_file=ProgressFile(path, header()))
    assert result.resumed == k and len(second.calls) == len(ROWS) - k
    assert set(second.calls).isdisjoint({BY_ID[i].answer for i in finished})
    assert set(result.outcomes) == set(BY_ID)


async def test_torn_last_line_is_ignored_and_not_glued_to(tmp_path):
    """A partial line left by a killed run is skipped; the next record starts on a new line."""
    path = tmp_path / "p.jsonl"
    await run_rows(ROWS[:2], FakeScorer(OUTPUTS), progress_file=ProgressFile(path, header()))
    with path.open("a") as f:
        f.write('{"kind": "row", "id": "doc2-mo')
    scorer = FakeScorer(OUTPUTS)
    result = await run_rows(ROWS, scorer, progress_file=ProgressFile(path, header()))
    assert result.resumed == 2 and len(scorer.calls) == 4
    assert len(ProgressFile(path, header()).load()) == 6


async def test_progress_from_another_method_or_judge_is_refused(tmp_path):
    """Resuming with a different scorer would mix reports: a clear ConfigError instead."""
    path = tmp_path / "p.jsonl"
    await run_rows(ROWS[:1], FakeScorer(OUTPUTS), progress_file=ProgressFile(path, header()))
    with pytest.raises(ConfigError, match="was written with method 'fake'"):
        await run_rows(ROWS, FakeScorer(), progress_file=ProgressFile(path, header("rt4chart")))
    with pytest.raises(ConfigError, match="was written with judge"):
        ProgressFile(path, header(judge="local")).load()


def test_corrupt_progress_file_is_an_error(tmp_path):
    """Garbage in the middle of a progress file is not silently skipped."""
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps(header().model_dump()) + "\nnot json\n" + '{"kind":"row","id":"x","ok":true}\n'
    )
    with pytest.raises(ConfigError, match=r":2: progress file is corrupt"):
        ProgressFile(path, header()).load()


async def test_reference_metric_runs_for_rows_with_a_target():
    """Rows carrying ``target`` get the reference summary, computed from the report's claims."""
    seen: list[tuple[str, list[str]]] = []

    class Ref:
        async def summary(self, question, answer, references, target, *, claims=None):
            seen.append((target, list(claims or [])))
            return {"hallucination": 0.25, "faithfulness": 0.5, "noise_sensitivity": 0.0}

    row = type(ROWS[0])(**{**ROWS[0].__dict__, "target": "14 days"})
    result = await run_rows([row, ROWS[1]], FakeScorer(OUTPUTS), reference=Ref())
    assert seen == [("14 days", [row.answer])]
    s = summarize([row, ROWS[1]], result.outcomes, threshold=0.5, threshold_source="t")
    assert s.reference["rows"] == 1 and s.reference["hallucination"] == 0.25
