"""Benchmark evaluation behind ``guardrail eval`` and ``guardrail calibrate``.

* :mod:`~guardrail.evaluation.datasets` — load the shared JSON Lines row schema, split by source.
* :mod:`~guardrail.evaluation.metrics` — answer- and span-level P/R/F1, threshold sweeps.
* :mod:`~guardrail.evaluation.runner` — concurrent, resumable scoring of rows with any scorer.
* :mod:`~guardrail.evaluation.distributed` — the same on a Ray cluster (``--ray``).
* :mod:`~guardrail.evaluation.turns` — logged turns from an audit log or a chat log.
* :mod:`~guardrail.evaluation.rescore` — a turn's new score and policy decision.
* :mod:`~guardrail.evaluation.results` — the figures the CLI prints and writes.
* :mod:`~guardrail.evaluation.calibrate` — tune a threshold, write it into a policy copy.
"""

from guardrail.evaluation.datasets import EvalRow, load_rows, split_by_group
from guardrail.evaluation.metrics import (
    BinaryCounts,
    SpanCounts,
    answer_counts,
    best_threshold,
    span_counts,
    span_metrics,
    threshold_sweep,
)
from guardrail.evaluation.runner import ProgressFile, ProgressHeader, RowOutcome, run_rows

__all__ = [
    "BinaryCounts",
    "EvalRow",
    "ProgressFile",
    "ProgressHeader",
    "RowOutcome",
    "SpanCounts",
    "answer_counts",
    "best_threshold",
    "load_rows",
    "run_rows",
    "span_counts",
    "span_metrics",
    "split_by_group",
    "threshold_sweep",
]
