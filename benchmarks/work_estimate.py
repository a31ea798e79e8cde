"""Does the work estimate follow the time scoring really takes?

Scores answers of several shapes against generated contexts with the default policy and the
offline judge, in this process (no deadline), and prints for each: the estimated work
(:func:`guardrail.serving.scheduler.estimated_work`), the lane it is sent to and whether
``--max-work`` refuses it at the default limits, the factoids the judge verified and the
seconds scoring took. Among the shapes: one "sentence" of 200 clauses joined by ``"; "``,
which a sentence count reads as one sentence.

    python -m benchmarks.work_estimate [--shapes NAME,...] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from benchmarks.service_fairness import WORDS

QUESTION = "Who handles the request?"


def _sentence(rng: random.Random, i: int) -> str:
    a, b, c = rng.sample(WORDS, 3)
    return f"The {a} number {i} is handled by the {b} office within {rng.randint(2, 60)} {c}s"


def _context(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    total = 0
    while total < size:
        parts.append(_sentence(rng, rng.randint(0, 10**6)) + ".")
        total += len(parts[-1]) + 1
    return " ".join(parts)[:size]


def shapes(seed: int = 7) -> dict[str, tuple[str, list[str]]]:
    """Name -> (answer, contexts)."""
    rng = random.Random(seed)
    clauses = [_sentence(rng, i) for i in range(200)]
    ctx_100k = [_context(rng, 100_000)]
    return {
        "1 sentence x 100 KB": (clauses[0] + ".", ctx_100k),
        "4 sentences x 5 x 49 KB": (
            " ".join(c + "." for c in clauses[:4]),
            [_context(rng, 49_000) for _ in range(5)],
        ),
        "10 sentences x 100 KB": (" ".join(c + "." for c in clauses[:10]), ctx_100k),
        "40 sentences x 10 KB": (
            " ".join(c + "." for c in clauses[:40]),
            [_context(rng, 10_000)],
        ),
        "200 clauses '; ' x 10 KB": ("; ".join(clauses) + ".", [_context(rng, 10_000)]),
        "200 clauses '; ' x 100 KB": ("; ".join(clauses) + ".", ctx_100k),
        "50 clauses ', and' x 100 KB": (", and ".join(clauses[:50]) + ".", ctx_100k),
        "10 KB unpunctuated x 38 chars": (("word " * 2_000)[:10_000], [_context(rng, 38)]),
        "100 KB unpunctuated x 38 chars": (("word " * 20_000)[:100_000], [_context(rng, 38)]),
    }


async def _score(guard: Any, answer: str, contexts: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    result = await guard.acheck(QUESTION, answer, contexts)
    seconds = time.perf_counter() - started
    report = result.report
    factoids = len(report.factoids) if report is not None else 0
    return seconds, factoids


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", help="comma-separated shape names (default: all)")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)

    from guardrail.guard import Guard
    from guardrail.policy import load_policy
    from guardrail.serving.limits import RequestLimits
    from guardrail.serving.scheduler import estimated_work

    limits = RequestLimits()
    guard = Guard(load_policy(repo_root() / "policies" / "default.yaml"))
    chosen = shapes()
    if args.shapes:
        chosen = {k: v for k, v in chosen.items() if k in args.shapes.split(",")}
    rows: list[dict[str, Any]] = []
    for name, (answer, contexts) in chosen.items():
        work = estimated_work(answer, contexts)
        seconds, factoids = asyncio.run(_score(guard, answer, contexts))
        rows.append(
            {
                "shape": name,
                "answer_chars": len(answer),
                "context_chars": sum(map(len, contexts)),
                "estimated_work": work,
                "lane": "small" if work <= limits.small_work else "large",
                "refused_by_max_work": work > limits.max_work,
                "factoids_verified": factoids,
                "seconds": round(seconds, 3),
            }
        )
    table = Table(title="work estimate vs scoring time (offline judge, default policy)")
    for column in ("shape", "estimated work", "lane", "refused", "factoids", "seconds"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["shape"],
            f"{r['estimated_work']:,}",
            r["lane"],
            "yes" if r["refused_by_max_work"] else "no",
            str(r["factoids_verified"]),
            f"{r['seconds']:.2f}",
        )
    Console().print(table)
    out = write_results(
        "work_estimate", {"limits": limits.model_dump(), "rows": rows}, args.json_out
    )
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
