"""How many judge calls and how much wall time MetaRAG spends on one answer.

A 10-factoid answer, k = 2, a scripted judge that sleeps a fixed latency per call (200 ms by
default, like a fast hosted model). MetaRAG's stages run their calls concurrently, so the wall
time should be about three round trips (decompose, mutate, verify), not 61.

    python -m benchmarks.scoring_latency [--latency 0.2] [--factoids 10] [--k 2] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time

from rich.console import Console
from rich.table import Table

from benchmarks._common import write_results
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.scoring import MetaRAG, MetaRAGConfig


def scripted(facts: list[str], latency: float) -> ScriptedJudge:
    def handler(req: JudgeRequest) -> str:
        if req.task == "decompose":
            return json.dumps(facts)
        if req.task in ("synonym", "antonym"):
            return "\n".join(
                f"{req.task} {i}: {req.inputs['factoid']}" for i in range(req.inputs["count"])
            )
        return (
            "YES. Supported." if req.inputs["statement"].startswith("synonym") else "NO. Refuted."
        )

    return ScriptedJudge(handler, latency_s=latency)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--factoids", type=int, default=10)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json-out", default="benchmarks/results/scoring_latency.json")
    args = ap.parse_args()

    facts = [f"Fact number {i} is stated in the context." for i in range(args.factoids)]
    answer = " ".join(facts)
    runs = []
    for _ in range(args.repeats):
        judge = scripted(facts, args.latency)
        scorer = MetaRAG(judge, config=MetaRAGConfig(k=args.k))
        t0 = time.perf_counter()
        report = scorer.score_sync("q", answer, ["Context."])
        wall = time.perf_counter() - t0
        runs.append(
            {
                "wall_s": wall,
                "judge_calls": report.usage.judge_calls,
                "round_trips": wall / args.latency if args.latency else None,
                "stages": {
                    s.stage: {"calls": s.calls, "seconds": s.seconds} for s in report.usage.stages
                },
                "score": report.score,
            }
        )
    best = min(runs, key=lambda r: r["wall_s"])
    expected_calls = 1 + 2 * args.factoids + 2 * args.k * args.factoids
    result = {
        "benchmark": "scoring_latency",
        "factoids": args.factoids,
        "k": args.k,
        "latency_per_call_s": args.latency,
        "expected_calls": expected_calls,
        "sequential_time_s": expected_calls * args.latency,
        "runs": runs,
        "best_wall_s": best["wall_s"],
        "median_wall_s": sorted(r["wall_s"] for r in runs)[len(runs) // 2],
        "python": platform.python_version(),
    }
    ms = args.latency * 1000
    table = Table(title=f"MetaRAG, {args.factoids}-factoid answer, k={args.k}, {ms:.0f} ms/call")
    for col in ("run", "judge calls", "wall s", "round trips", "decompose", "mutate", "verify"):
        table.add_column(col, justify="right")
    for i, r in enumerate(runs, 1):
        st = r["stages"]
        table.add_row(
            str(i),
            str(r["judge_calls"]),
            f"{r['wall_s']:.3f}",
            f"{r['round_trips']:.2f}" if r["round_trips"] else "-",
            *(
                f"{st[s]['calls']} / {st[s]['seconds']:.3f}s"
                for s in ("decompose", "mutate", "verify")
            ),
        )
    Console().print(table)
    print(
        f"sequential would take {result['sequential_time_s']:.1f}s; expected calls {expected_calls}"
    )
    print(f"wrote {write_results('scoring_latency', result, args.json_out)}")


if __name__ == "__main__":
    main()
