"""Offline judge on RAGTruth: answers scored per second (one core) and answer-level quality.

Scores RAGTruth dev rows with ``MetaRAG(LocalJudge())`` (k = 2), sequentially, and reports
throughput and, for information, answer-level precision / recall / F1 of the hallucinated class
at the scorer's threshold. The data is read from ../shared/data (never copied into the repo).

    python benchmarks/local_judge_ragtruth.py [--rows 200] [--task qa] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks._common import data_root
from guardrail.evaluation.datasets import load_rows
from guardrail.evaluation.metrics import answer_counts
from guardrail.judges.local import LocalJudge
from guardrail.scoring import MetaRAG, MetaRAGConfig

DATA = data_root()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200)
    ap.add_argument("--task", default="qa", help="qa | summary | data2text | all")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--json-out", default="benchmarks/results/local_judge_ragtruth.json")
    args = ap.parse_args()

    rows = load_rows(
        DATA / "ragtruth" / "dev.jsonl",
        task=None if args.task == "all" else args.task,
        limit=args.rows,
    )  # file order: the first --rows rows of the task
    scorer = MetaRAG(LocalJudge(), config=MetaRAGConfig(k=2, threshold=args.threshold))
    predicted: list[bool] = []
    calls = factoids = 0
    ctx_chars = ans_chars = 0
    started = time.perf_counter()
    cpu0 = time.process_time()
    for row in rows:
        report = scorer.score_sync(row.question, row.answer, [row.context])
        calls += report.usage.judge_calls
        factoids += len(report.factoids)
        ctx_chars += len(row.context)
        ans_chars += len(row.answer)
        predicted.append(report.flagged)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    n = len(rows)
    counts = answer_counts([row.label for row in rows], predicted)
    result = {
        "benchmark": "local_judge_ragtruth",
        "task": args.task,
        "rows": n,
        "threshold": args.threshold,
        "answers_per_s": n / wall if wall else 0.0,
        "cpu_s_per_answer": cpu / n if n else 0.0,
        "judge_calls_per_answer": calls / n if n else 0.0,
        "factoids_per_answer": factoids / n if n else 0.0,
        "mean_context_chars": ctx_chars / n if n else 0.0,
        "mean_answer_chars": ans_chars / n if n else 0.0,
        "precision": counts.precision,
        "recall": counts.recall,
        "f1": counts.f1,
        "confusion": {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, "tn": counts.tn},
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    table = Table(title=f"LocalJudge on RAGTruth dev ({args.task}, {n} answers)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in (
        "answers_per_s",
        "cpu_s_per_answer",
        "judge_calls_per_answer",
        "factoids_per_answer",
        "mean_context_chars",
        "mean_answer_chars",
        "precision",
        "recall",
        "f1",
    ):
        table.add_row(key, f"{result[key]:.3f}")
    Console().print(table)
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
