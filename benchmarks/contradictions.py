"""The offline judges on the public contradiction suite (``tests/data/contradictions.jsonl``).

Every case is one context and a one-fact answer that either contradicts it on a single value
(a number with its unit, a date, year, time, weekday, ordinal, amount of money, percentage, a
named person, place or organisation, an antonym or comparative, a negation) or restates it
faithfully (paraphrases, other number formats, negations of a contradicted statement). Each
answer is scored by MetaRAG (default settings) with the offline judge; a contradiction is
*caught* when it scores >= 0.8, a restatement is *kept* when it scores <= 0.3.

    python -m benchmarks.contradictions [--judge local] [--judge local:rules ...]

Prints a table per judge (one row per value kind) and writes
``benchmarks/results/contradictions.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from guardrail.judges.registry import make_judge
from guardrail.scoring import MetaRAG

SUITE = Path("tests") / "data" / "contradictions.jsonl"
CAUGHT = 0.8
KEPT = 0.3


def load_suite(path: Path | None = None) -> list[dict[str, Any]]:
    """The suite's cases (``id``, ``kind``, ``context``, ``statement``, ``expect``)."""
    path = path or repo_root() / SUITE
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def score_suite(judge_spec: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case with its MetaRAG score under ``judge_spec``."""
    scorer = MetaRAG(make_judge(judge_spec))
    out = []
    for case in cases:
        report = scorer.score_sync("", case["statement"], [case["context"]])
        out.append({**case, "score": report.score})
    return out


def summary(scored: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind and overall: contradictions caught (>= 0.8), restatements kept (<= 0.3)."""
    per: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for case in scored:
        row = per[case["kind"]]
        if case["expect"] == "contradicted":
            row["contradictions"] += 1
            row["caught"] += case["score"] >= CAUGHT
        else:
            row["restatements"] += 1
            row["kept"] += case["score"] <= KEPT
    total = {
        key: sum(r[key] for r in per.values())
        for key in ("contradictions", "caught", "restatements", "kept")
    }
    return {
        "kinds": {k: dict(v) for k, v in sorted(per.items())},
        "total": total,
        "caught_share": total["caught"] / total["contradictions"] if total["contradictions"] else 0,
        "kept_share": total["kept"] / total["restatements"] if total["restatements"] else 0,
        "missed": [
            c["id"] for c in scored if c["expect"] == "contradicted" and c["score"] < CAUGHT
        ],
        "flagged": [c["id"] for c in scored if c["expect"] != "contradicted" and c["score"] > KEPT],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", action="append", help="judge spec (repeatable); default: local")
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    cases = load_suite()
    console = Console()
    results: dict[str, Any] = {}
    for spec in args.judge or ["local"]:
        started = time.perf_counter()
        scored = score_suite(spec, cases)
        found = summary(scored)
        found["seconds"] = round(time.perf_counter() - started, 2)
        results[spec] = found
        table = Table(
            title=f"{spec}: contradictions caught (score >= {CAUGHT}), "
            f"restatements kept (score <= {KEPT})"
        )
        for col in ("kind", "caught", "kept"):
            table.add_column(col, justify="left" if col == "kind" else "right")
        for kind, row in found["kinds"].items():
            caught = (
                f"{row.get('caught', 0)}/{row['contradictions']}"
                if row.get("contradictions")
                else "-"
            )
            kept = f"{row.get('kept', 0)}/{row['restatements']}" if row.get("restatements") else "-"
            table.add_row(kind, caught, kept)
        t = found["total"]
        table.add_row(
            "all",
            f"{t['caught']}/{t['contradictions']} ({found['caught_share']:.0%})",
            f"{t['kept']}/{t['restatements']} ({found['kept_share']:.0%})",
        )
        console.print(table)
    path = write_results("contradictions", {"cases": len(cases), "judges": results}, args.json_out)
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
