"""The harness on the real benchmark files in ../shared/data (skips when they are absent)."""

from __future__ import annotations

import itertools

import pytest

from guardrail.evaluation.datasets import iter_rows, load_rows
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import run_rows
from guardrail.scoring.rt4chart import RT4Chart
from tests.evaluation.fakes import substring_judge

pytestmark = pytest.mark.data


def test_ragtruth_dev_loads_completely(shared_data):
    """Every RAGTruth dev row passes the loader: spans inside answers, labels 0/1."""
    rows = load_rows(shared_data / "ragtruth" / "dev.jsonl")
    assert len(rows) == 1306
    assert {r.task for r in rows} == {"qa", "summary", "data2text"}
    assert all(r.spans for r in rows if r.label == 1)


def test_halueval_rows_load_and_group_by_pair(shared_data):
    """HaluEval rows parse; the right and hallucinated answer of a pair share a group."""
    rows = list(itertools.islice(iter_rows(shared_data / "halueval" / "halueval_qa.jsonl"), 4))
    assert rows[0].group == rows[1].group != rows[2].group


async def test_rt4chart_eval_on_five_ragtruth_rows(shared_data):
    """Five real rows through RT4CHART (scripted judge) and the metrics, one per task at least."""
    rows = load_rows(shared_data / "ragtruth" / "dev.jsonl", shuffle_seed=7, limit=5)
    judge = substring_judge()
    result = await run_rows(rows, RT4Chart(judge), jobs=2)
    assert result.failed == 0 and result.scored == 5
    summary = summarize(rows, result.outcomes, threshold=0.5, threshold_source="test")
    assert summary.n == 5 and summary.answer["n"] == 5
    assert summary.cost is not None and summary.cost.judge_calls_per_answer >= 3
    tasks = {r.task for r in judge.requests}
    assert tasks == {"claims", "local_verify", "global_verify"}
