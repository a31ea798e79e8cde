"""How long a runaway judge call holds a local llama.cpp server after its deadline.

One SmolLM2-135M-Instruct server (llama-cpp-python, one slot) on 127.0.0.1. For plain and for
streamed requests: a short request alone, then a long request (``--tokens`` completion tokens)
cut by a ``--deadline`` second deadline, then the same short request, timed. A server that stops
generating when the client closes the request answers the second short request as fast as the
first; one that finishes the long reply first makes it wait.

    python -m benchmarks.llm_deadline [--deadline 2] [--tokens 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import write_results
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.local_server import SMOLLM2_NAME, llama_server

STORY = "Write a very long story about a lighthouse keeper."


async def trial(url: str, stream: bool, deadline: float, tokens: int) -> dict[str, Any]:
    judge = OpenAIJudge(SMOLLM2_NAME, base_url=url, api_key="unused", stream=stream)
    long = JudgeRequest(task="story", prompt=STORY, max_tokens=tokens)
    short = JudgeRequest(task="short", prompt="Say OK.", max_tokens=4)
    try:
        started = time.monotonic()
        await judge.complete(short)
        alone = time.monotonic() - started
        try:
            await asyncio.wait_for(judge.complete(long), timeout=deadline)
            cut = False
        except asyncio.TimeoutError:
            cut = True
        started = time.monotonic()
        await judge.complete(short)
        after = time.monotonic() - started
    finally:
        await judge.aclose()
    return {"stream": stream, "short_alone_s": alone, "long_cut": cut, "short_after_s": after}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadline", type=float, default=2.0)
    parser.add_argument("--tokens", type=int, default=1500)
    args = parser.parse_args()
    with llama_server(SMOLLM2_NAME) as server:
        rows = [
            asyncio.run(trial(server.url, stream, args.deadline, args.tokens))
            for stream in (True, False)
        ]
    table = Table(title=f"short request after a {args.deadline:g} s-deadline runaway")
    for col in ("requests", "short alone (s)", "long cut", "short after (s)"):
        table.add_column(col)
    for row in rows:
        table.add_row(
            "streamed" if row["stream"] else "plain",
            f"{row['short_alone_s']:.1f}",
            str(row["long_cut"]),
            f"{row['short_after_s']:.1f}",
        )
    Console().print(table)
    path = write_results(
        "llm_deadline", {"deadline_s": args.deadline, "tokens": args.tokens, "rows": rows}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
