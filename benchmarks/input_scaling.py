"""How scoring time grows with input size on the offline path (MetaRAG, offline judge, word
localizer): answers of 10 KB to 1 MB, then contexts of 1 to 8 x 100 KB.

Work should grow linearly: the table prints seconds and seconds per 100 KB, which should stay
about flat. (The word localizer used to scan every word once per sentence: a 100 KB answer took
4.9 s, a 1 MB answer did not finish in 2 minutes.)

    python -m benchmarks.input_scaling [--json-out PATH]
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from benchmarks._common import write_results
from guardrail.judges.local import LocalJudge
from guardrail.scoring import MetaRAG

SENTENCE = "The museum opens at 9 am on weekdays and closes at 5 pm, except on public holidays. "
CONTEXT = "The museum opens at 9 am on weekdays. Entry costs 12 euros. " * 50
WORDS = "museum opens weekdays entry costs euros children free tours garden cafe closes".split()


def passage(chars: int, rng: random.Random) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


def timed(scorer: MetaRAG, answer: str, contexts: list[str]) -> float:
    started = time.perf_counter()
    scorer.score_sync("When does the museum open?", answer, contexts)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json-out", default="benchmarks/results/input_scaling.json")
    args = ap.parse_args()
    scorer = MetaRAG(LocalJudge())
    rng = random.Random(0)
    rows = []
    for chars in (10_000, 100_000, 300_000, 1_000_000):
        answer = SENTENCE * (chars // len(SENTENCE))
        rows.append({"input": f"answer {chars // 1000} KB", "chars": len(answer),
                     "seconds": timed(scorer, answer, [CONTEXT])})  # fmt: skip
    for n in (1, 2, 4, 8):
        contexts = [passage(100_000, rng) for _ in range(n)]
        rows.append({"input": f"{n} x 100 KB contexts", "chars": n * 100_000,
                     "seconds": timed(scorer, SENTENCE * 3, contexts)})  # fmt: skip
    table = Table(title="Offline scoring time by input size (MetaRAG, offline judge, localizer)")
    for col in ("input", "characters", "seconds", "s per 100 KB"):
        table.add_column(col, justify="left" if col == "input" else "right")
    for r in rows:
        per = r["seconds"] / (r["chars"] / 100_000)
        table.add_row(r["input"], f"{r['chars']:,}", f"{r['seconds']:.2f}", f"{per:.2f}")
    console = Console()
    console.print(table)
    console.print(f"wrote {write_results('input_scaling', {'rows': rows}, args.json_out)}")


if __name__ == "__main__":
    main()
