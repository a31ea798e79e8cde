"""Re-scoring RAGTruth dev locally and on a local Ray instance: rows/s and identical figures.

Scores the RAGTruth dev rows (../shared/data, never copied into the repo) with the default
scorer settings (MetaRAG, the offline ``local`` judge) three ways — in this process, on Ray with
one worker, on Ray with two — through the same runner ``guardrail eval`` uses, and checks that
every figure ``guardrail eval --json-out`` would write (minus timings) is identical to the
local run's. Ray is started once, before the timed runs (its start-up is reported apart);
each Ray run's time includes creating its worker actors, which build their scorers from the
shipped settings.

    python -m benchmarks.rescore_ray [--rows N] [--chunk 8] [--json-out PATH]

``benchmarks.scale_out`` calls :func:`run` (returns the result dict) or :func:`main`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import data_root, write_results
from guardrail.evaluation.datasets import EvalRow, load_rows
from guardrail.evaluation.distributed import (
    DEFAULT_CHUNK,
    EvalSpec,
    RayOptions,
    import_ray,
    ray_executor,
)
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import RowOutcome, RunResult, run_rows
from guardrail.scoring.factory import build_scorer
from guardrail.scoring.settings import DEFAULT_THRESHOLD, MetaRAGSettings

DATA = data_root()
DEFAULT_OUT = Path("benchmarks/results/rescore_ray.json")


def figures(rows: list[EvalRow], result: RunResult[RowOutcome]) -> str:
    """The eval figures as canonical JSON, without the one timing they hold."""
    summary = summarize(
        rows, result.outcomes, threshold=DEFAULT_THRESHOLD, threshold_source="scorer default"
    )
    summary["cost"].pop("seconds_per_answer", None)
    return json.dumps(summary, sort_keys=True)


def _score_part(rows: list[EvalRow]) -> int:
    """Control run: score ``rows`` in a plain child process (no Ray); returns rows scored."""
    scorer = build_scorer(MetaRAGSettings(), threshold=DEFAULT_THRESHOLD)
    return len(asyncio.run(run_rows(rows, scorer, threshold=DEFAULT_THRESHOLD)).outcomes)


def _two_processes(rows: list[EvalRow]) -> float:
    """Seconds for two plain processes scoring half the rows each: what two cores give without
    Ray, to tell Ray's overhead from the machine's capacity."""
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        done = sum(pool.map(_score_part, [rows[0::2], rows[1::2]]))
    assert done == len(rows)
    return time.perf_counter() - started


def _timed(coro: Any) -> tuple[RunResult[RowOutcome], float]:
    started = time.perf_counter()
    result = asyncio.run(coro)
    return result, time.perf_counter() - started


def run(
    rows: int | None = None, *, chunk: int = DEFAULT_CHUNK, data: Path = DATA
) -> dict[str, Any]:
    """Run the three configurations and return the result dict (also what ``main`` writes)."""
    ray = import_ray()
    dataset = load_rows(data / "ragtruth" / "dev.jsonl", limit=rows)
    settings = MetaRAGSettings()
    scorer = build_scorer(settings, threshold=DEFAULT_THRESHOLD)
    load_before = os.getloadavg()[0]

    local, local_s = _timed(run_rows(dataset, scorer, threshold=DEFAULT_THRESHOLD))
    reference = figures(dataset, local)
    runs: list[dict[str, Any]] = [
        {
            "name": "local (1 process)",
            "workers": 0,
            "seconds": local_s,
            "identical": True,
            "load_1min_after": os.getloadavg()[0],
        }
    ]

    control_s = _two_processes(dataset)
    control_load = os.getloadavg()[0]
    started = time.perf_counter()
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(
            address="local",  # a new instance of its own, never another process's cluster
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
    ray_start_s = time.perf_counter() - started
    try:
        spec = EvalSpec.of(settings, DEFAULT_THRESHOLD)
        for workers in (1, 2):
            executor = ray_executor(spec, RowOutcome, RayOptions(workers=workers, chunk=chunk))
            result, seconds = _timed(run_rows(dataset, scorer, executor=executor))
            runs.append(
                {
                    "name": f"Ray, {workers} worker{'s' if workers > 1 else ''}",
                    "workers": workers,
                    "seconds": seconds,
                    "identical": figures(dataset, result) == reference,
                    "failed": result.failed,
                    "load_1min_after": os.getloadavg()[0],
                }
            )
    finally:
        if started_ray:
            ray.shutdown()
    runs.append(
        {
            "name": "control: 2 processes, no Ray",
            "workers": 2,
            "seconds": control_s,
            "identical": None,
            "load_1min_after": control_load,
        }
    )
    for entry in runs:
        entry["rows_per_s"] = len(dataset) / entry["seconds"]
    one, two = runs[1]["rows_per_s"], runs[2]["rows_per_s"]
    return {
        "benchmark": "rescore_ray",
        "dataset": "ragtruth/dev.jsonl",
        "rows": len(dataset),
        "scorer": settings.model_dump(mode="json"),
        "chunk": chunk,
        "runs": runs,
        "scaling_1_to_2_workers": two / one,
        "ray_local_vs_local": runs[2]["rows_per_s"] / runs[0]["rows_per_s"],
        "metrics_identical": all(r["identical"] for r in runs if r["identical"] is not None),
        "control_2_processes_vs_local": runs[3]["rows_per_s"] / runs[0]["rows_per_s"],
        "ray_start_seconds": ray_start_s,
        "ray_version": ray.__version__,
        "machine": {
            "cpus": os.cpu_count(),
            "load_1min_before": load_before,
            "python": platform.python_version(),
        },
        "answer_f1": json.loads(reference)["answer"]["f1"],
    }


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"re-scoring {result['rows']} RAGTruth dev rows (offline judge)")
    for col in ("run", "seconds", "rows/s", "metrics identical to local", "1-min load after"):
        table.add_column(col, justify="left" if col == "run" else "right")
    for entry in result["runs"]:
        table.add_row(
            entry["name"],
            f"{entry['seconds']:.1f}",
            f"{entry['rows_per_s']:.1f}",
            {True: "yes", False: "NO", None: "-"}[entry["identical"]],
            f"{entry['load_1min_after']:.1f}",
        )
    console.print(table)
    machine = result["machine"]
    console.print(
        f"1 -> 2 Ray workers: {result['scaling_1_to_2_workers']:.2f}x; 2 plain processes vs "
        f"local: {result['control_2_processes_vs_local']:.2f}x "
        f"({machine['cpus']} cores, 1-min load {machine['load_1min_before']:.1f} before); "
        f"Ray start-up {result['ray_start_seconds']:.1f} s, not in the figures above"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=None, help="only the first N rows (default all)")
    ap.add_argument("--chunk", type=int, default=DEFAULT_CHUNK, help="rows per Ray call")
    ap.add_argument("--json-out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    result = run(args.rows, chunk=args.chunk)
    print_table(result)
    Console().print(f"wrote {write_results('rescore_ray', result, args.json_out)}")
    return result


if __name__ == "__main__":
    main()
