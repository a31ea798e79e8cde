"""What every benchmark shares: where the repository and the data are, and how results are written.

Run benchmarks from the repository root as modules (``python -m benchmarks.NAME``) so that
``guardrail`` and this package import without touching ``sys.path``.

The labelled data (RAGTruth, HaluEval in one JSONL schema) is never copied into the repository:
:func:`data_root` reads ``GUARDRAIL_SHARED_DATA`` first and falls back to ``../shared/data``
beside the checkout.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

DATA_ENV = "GUARDRAIL_SHARED_DATA"


def repo_root() -> Path:
    """The repository's root folder (the one holding ``pyproject.toml``)."""
    return Path(__file__).resolve().parents[1]


def results_dir() -> Path:
    """Where benchmarks write their JSON by default (``benchmarks/results/``)."""
    return repo_root() / "benchmarks" / "results"


def data_root() -> Path:
    """The labelled-data folder: ``$GUARDRAIL_SHARED_DATA`` if set, else ``../shared/data``."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return repo_root().parent / "shared" / "data"


def require_data(*parts: str) -> Path:
    """A file under :func:`data_root`, or exit 2 with one line saying where it was looked for."""
    path = data_root().joinpath(*parts)
    if not path.exists():
        sys.exit(f"error: {path} not found (set {DATA_ENV} to the labelled-data folder)")
    return path


def machine() -> dict[str, Any]:
    """Date, Python, platform, CPU count and load average: stored with every result."""
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_avg": load,
    }


def write_results(name: str, payload: dict[str, Any], path: str | Path | None = None) -> Path:
    """Write ``payload`` (plus a ``machine`` block) as strict JSON; return the path written.

    A ``machine`` block already in ``payload`` is kept and completed with :func:`machine`.
    ``path`` defaults to ``benchmarks/results/NAME.json``. NaN and infinities are refused, so
    every results file is valid JSON for any reader.
    """
    out = Path(path) if path is not None else results_dir() / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    body: dict[str, Any] = {"benchmark": name, **payload}
    body["machine"] = {**machine(), **payload.get("machine", {})}
    out.write_text(json.dumps(body, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return out


def stated_conflict(report: Any) -> bool:
    """Whether a :class:`~guardrail.models.ScoreReport` flags its answer on a stated conflict —
    a verifier said NO to a factoid's synonym or YES to its antonym — rather than only on
    missing support (every verdict NOT SURE). An answer caught only by missing support is
    caught by what its words fail to match, so a faithful restatement in other words is
    flagged the same way: the share caught on a stated conflict is the part of the catch rate
    that does not trade against restatements passing."""
    if report is None:
        return False
    for factoid in report.factoids:
        for variant in factoid.variants:
            wanted = "NO" if variant.relation.value == "synonym" else "YES"
            if any(v.label.value == wanted for v in variant.verdicts):
                return True
    return False
