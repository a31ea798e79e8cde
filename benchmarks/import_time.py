"""Start-up cost: ``import guardrail`` and ``guardrail --help``, each in fresh processes.

Every scenario runs ``--runs`` times in a new interpreter (scenarios interleaved, so a busy
moment hits all of them alike); the table gives the median and the minimum. *process* is the
wall time of the whole process, interpreter start-up included (the ``python -c pass`` row is
that start-up alone); *import* is the time of the import statement itself, timed inside the
process (what ``python -X importtime`` reports as the module's cumulative time, without that
option's own overhead; it cannot see imports made through ``importlib``, as the lazy public
names are). The checkout this script lives in is measured (it is put first on
``PYTHONPATH``), also through the installed console script when there is one.

    python -m benchmarks.import_time [--runs 15] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results

ROOT = repo_root()
#: The start-up budgets, in milliseconds: (scenario, column, limit).
TARGETS = (("import guardrail", "import", 400.0), ("guardrail --help", "process", 600.0))


def timed(statement: str) -> str:
    """A ``-c`` program that runs ``statement`` and prints how long it took, in ms."""
    return "\n".join(
        [
            "import time",
            "t0 = time.perf_counter()",
            statement,
            "print((time.perf_counter() - t0) * 1e3)",
        ]
    )


def scenarios() -> dict[str, tuple[list[str], bool]]:
    """Label -> (command, whether it prints its own import time)."""
    python = sys.executable
    found = {"python -c pass (start-up)": ([python, "-c", "pass"], False)}
    for statement in ("import guardrail", "from guardrail import Guard"):
        found[statement] = ([python, "-c", timed(statement)], True)
    found["python -m guardrail --help"] = ([python, "-m", "guardrail", "--help"], False)
    script = Path(sysconfig.get_path("scripts")) / "guardrail"
    if script.exists():
        found["guardrail --help"] = ([str(script), "--help"], False)
    return found


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stderr}")
    return proc


def measure(runs: int, env: dict[str, str]) -> dict[str, dict[str, float | None]]:
    plan = scenarios()
    wall: dict[str, list[float]] = {label: [] for label in plan}
    imports: dict[str, list[float]] = {label: [] for label in plan}
    for _ in range(runs):
        for label, (command, reports) in plan.items():
            t0 = time.perf_counter()
            proc = run(command, env)
            wall[label].append((time.perf_counter() - t0) * 1000)
            if reports:
                imports[label].append(float(proc.stdout.split()[-1]))
    return {
        label: {
            "process_median_ms": statistics.median(wall[label]),
            "process_min_ms": min(wall[label]),
            "import_median_ms": statistics.median(imports[label]) if imports[label] else None,
            "import_min_ms": min(imports[label]) if imports[label] else None,
        }
        for label in plan
    }


@dataclass(frozen=True)
class Check:
    scenario: str
    column: str
    limit_ms: float
    median_ms: float

    @property
    def met(self) -> bool:
        return self.median_ms < self.limit_ms


def checked_targets(results: dict[str, dict[str, float | None]]) -> list[Check]:
    checks = []
    for label, column, limit in TARGETS:
        median = results.get(label, {}).get(f"{column}_median_ms")
        if median is not None:
            checks.append(Check(label, column, limit, median))
    return checks


def fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="fresh processes per scenario")
    ap.add_argument("--json-out", default=None, help="default benchmarks/results/import_time.json")
    args = ap.parse_args()
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    measured = run([sys.executable, "-c", "import guardrail; print(guardrail.__file__)"], env)
    results = measure(args.runs, env)
    checks = checked_targets(results)

    table = Table(title=f"Start-up time, ms ({args.runs} fresh processes each)")
    table.add_column("scenario", no_wrap=True)
    for col in ("process median", "process min", "import median", "import min"):
        table.add_column(col, justify="right")
    for label, r in results.items():
        table.add_row(
            label, fmt(r["process_median_ms"]), fmt(r["process_min_ms"]),
            fmt(r["import_median_ms"]), fmt(r["import_min_ms"]),
        )  # fmt: skip
    console = Console()
    console.print(table)
    for check in checks:
        console.print(
            f"{check.scenario}: {check.column} median {check.median_ms:.0f} ms, limit "
            f"{check.limit_ms:.0f} ms: {'met' if check.met else 'NOT met'}"
        )
    payload = {
        "runs": args.runs,
        "results": results,
        "targets": [{**asdict(check), "met": check.met} for check in checks],
        "guardrail_file": measured.stdout.strip(),
    }
    print(f"wrote {write_results('import_time', payload, args.json_out)}")


if __name__ == "__main__":
    main()
