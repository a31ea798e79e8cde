"""``guardrail report`` on a generated 100,000-turn audit log: wall time and peak memory.

Usage::

    python -m benchmarks.report [--turns 100000] [--dir DIR] [--repeats 3] [--out FILE.json]

The log (and its review queue) is generated once through the real writers
(:func:`guardrail.report.write_history`, the default policy, seven days) into ``--dir``
(default: ``$TMPDIR/guardrail-report-bench``) and reused while its turn count matches.
Each run is a fresh ``python -m guardrail report`` process writing the HTML and the JSON, so
the figures include the interpreter's start-up and imports; peak memory is the largest
resident set size of its processes, CPU seconds their user plus system time (less sensitive
than wall time to other load on a shared machine). Rows: the JSONL log alone, and the log
plus its review database.
Target: under 10 s and under 500 MB on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import repo_root, write_results


def _generate(folder: Path, turns: int) -> dict[str, Any]:
    from guardrail.audit import AuditLog
    from guardrail.policy import load_policy
    from guardrail.queues import ReviewQueue
    from guardrail.report import write_history

    stamp = folder / "generated.json"
    if stamp.is_file():
        meta: dict[str, Any] = json.loads(stamp.read_text())
        if meta.get("turns") == turns:
            return meta
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("audit.jsonl", "review.sqlite3", "review.sqlite3-wal", "review.sqlite3-shm"):
        (folder / name).unlink(missing_ok=True)
    started = time.perf_counter()
    truth = write_history(
        AuditLog(folder / "audit.jsonl", fsync=False),
        load_policy(repo_root() / "policies" / "default.yaml"),
        turns=turns,
        queue=ReviewQueue(folder / "review.sqlite3"),
        seed=1,
    )
    meta = {
        "turns": truth.turns,
        "escalated": truth.escalated,
        "resolved": truth.resolved,
        "log_bytes": (folder / "audit.jsonl").stat().st_size,
        "generate_s": round(time.perf_counter() - started, 1),
    }
    stamp.write_text(json.dumps(meta))
    return meta


def _run_once(args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds of all its processes) of one
    ``guardrail report`` run."""
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "dt = time.perf_counter() - t\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, r.ru_maxrss, r.ru_utime + r.ru_stime)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "guardrail", "report", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    return float(out[0]), int(out[1]) / 1024, float(out[2])  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "guardrail-report-bench"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/report.json"))
    args = parser.parse_args()
    meta = _generate(args.dir, args.turns)
    audit, db = args.dir / "audit.jsonl", args.dir / "review.sqlite3"
    scenarios = {
        "jsonl log": [str(audit)],
        "jsonl log + review db": [str(audit), "--db", str(db)],
    }
    rows = []
    for name, base in scenarios.items():
        outputs = ["--html", str(args.dir / "r.html"), "--json", str(args.dir / "r.json")]
        runs = [_run_once([*base, *outputs]) for _ in range(args.repeats)]
        rows.append(
            {
                "scenario": name,
                "seconds": [round(s, 2) for s, _, _ in runs],
                "best_s": round(min(s for s, _, _ in runs), 2),
                "cpu_s": [round(c, 2) for _, _, c in runs],
                "peak_mb": round(max(m for _, m, _ in runs), 1),
            }
        )
    result = {
        "log": {**meta, "directory": str(args.dir)},
        "html_bytes": (args.dir / "r.html").stat().st_size,
        "scenarios": rows,
        "target": {"seconds": 10, "peak_mb": 500},
        "rusage_self_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(
        f"guardrail report: {meta['turns']:,} turns, {meta['log_bytes'] / 1e6:.0f} MB log, "
        f"{meta['escalated']:,} escalations; {os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]}"
    )
    header = (
        f"{'scenario':<24} {'best s':>8} {'all runs (s)':>22} {'CPU s (all)':>22} {'peak MB':>9}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        runs_s = ", ".join(f"{s:.2f}" for s in row["seconds"])
        cpu_s = ", ".join(f"{s:.2f}" for s in row["cpu_s"])
        print(
            f"{row['scenario']:<24} {row['best_s']:>8.2f} {runs_s:>22} {cpu_s:>22} "
            f"{row['peak_mb']:>9.1f}"
        )
    print(f"wrote {write_results('report', result, args.out)}")


if __name__ == "__main__":
    main()
