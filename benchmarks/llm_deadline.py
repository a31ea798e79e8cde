"""What streaming judge calls costs and buys on a local llama.cpp server.

One SmolLM2-135M-Instruct server (llama-cpp-python, one slot) on 127.0.0.1, and the two ways
:class:`~guardrail.judges.openai.OpenAIJudge` can send a request (``stream=True``, the default
for ``openai-compatible:`` judges, and plain):

* **cost**: ``--calls`` verify-sized requests (a statement and a passage, up to 40 completion
  tokens) in each mode, interleaved so load drifts hit both alike: the median seconds a call;
* **runaway**: a short request alone, then a long request (``--tokens`` completion tokens) cut
  by a ``--deadline`` second per-call deadline (the judge runner's, as in scoring), then the
  same short request, timed. A server that stops generating when the request is closed answers
  the second short request about as fast as the first; one that finishes the long reply first
  makes it wait. The target: the delay (second minus first) stays under the deadline.

    python -m benchmarks.llm_deadline [--deadline 2] [--tokens 1500] [--calls 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import write_results
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.judges.runner import JudgeCallError, JudgeRunner, RetryPolicy
from guardrail.local_server import SMOLLM2_NAME, llama_server

STORY = "Write a very long story about a lighthouse keeper."
VERIFY = (
    "Passage: Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol "
    "is generally considered the first choice for pain relief during pregnancy.\n"
    "Statement: Ibuprofen is safe throughout pregnancy.\n"
    "Is the statement supported by the passage? Answer YES, NO or NOT SURE, then a reason."
)
MODES = {"streamed": True, "plain": False}


def _judge(url: str, stream: bool) -> OpenAIJudge:
    return OpenAIJudge(SMOLLM2_NAME, base_url=url, api_key="unused", stream=stream)


async def cost(url: str, calls: int) -> dict[str, list[float]]:
    """Seconds of each verify-sized call, per mode (the modes interleaved)."""
    judges = {mode: _judge(url, stream) for mode, stream in MODES.items()}
    request = JudgeRequest(task="verify", prompt=VERIFY, max_tokens=40)
    seconds: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for judge in judges.values():  # warm: the prompt is in the server's cache
            await judge.complete(request)
        for _ in range(calls):
            for mode, judge in judges.items():
                started = time.monotonic()
                await judge.complete(request)
                seconds[mode].append(time.monotonic() - started)
    finally:
        for judge in judges.values():
            await judge.aclose()
    return seconds


async def runaway(url: str, stream: bool, deadline: float, tokens: int) -> dict[str, Any]:
    """A short call alone, a long call cut by its deadline, the short call again."""
    judge = _judge(url, stream)
    cut = JudgeRunner(judge, RetryPolicy(timeout_s=deadline, max_attempts=1))
    patient = JudgeRunner(judge, RetryPolicy(timeout_s=600.0, max_attempts=1))
    long = JudgeRequest(task="story", prompt=STORY, max_tokens=tokens)
    short = JudgeRequest(task="short", prompt="Say OK.", max_tokens=4)
    try:
        started = time.monotonic()
        await patient.call("short", short)
        alone = time.monotonic() - started
        try:
            await cut.call("story", long)
            was_cut = False
        except JudgeCallError:
            was_cut = True
        started = time.monotonic()
        await patient.call("short", short)
        after = time.monotonic() - started
    finally:
        await judge.aclose()
    return {
        "stream": stream,
        "short_alone_s": alone,
        "long_cut": was_cut,
        "short_after_s": after,
        "delay_s": after - alone,
        "within_deadline": after - alone < deadline,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadline", type=float, default=2.0)
    parser.add_argument("--tokens", type=int, default=1500)
    parser.add_argument("--calls", type=int, default=8, help="verify-sized calls per mode")
    parser.add_argument("--threads", type=int, default=2, help="the server's threads")
    args = parser.parse_args()
    with llama_server(SMOLLM2_NAME, threads=args.threads) as server:
        seconds = asyncio.run(cost(server.url, args.calls))
        rows = [
            asyncio.run(runaway(server.url, stream, args.deadline, args.tokens))
            for stream in MODES.values()
        ]
    table = Table(
        title=f"SmolLM2-135M on llama-cpp-python: streamed vs plain judge calls "
        f"(runaway: {args.tokens} tokens cut at {args.deadline:g} s)"
    )
    for col in ("requests", "verify call, median (s)", "short alone (s)", "short after (s)"):
        table.add_column(col)
    table.add_column("delay (s)")
    for mode, row in zip(MODES, rows, strict=True):
        table.add_row(
            mode,
            f"{statistics.median(seconds[mode]):.2f}",
            f"{row['short_alone_s']:.2f}",
            f"{row['short_after_s']:.2f}",
            f"{row['delay_s']:.2f}" + ("" if row["within_deadline"] else " (over the deadline)"),
        )
    Console().print(table)
    path = write_results(
        "llm_deadline",
        {
            "deadline_s": args.deadline,
            "tokens": args.tokens,
            "threads": args.threads,
            "verify_call_s": {
                mode: {"median": statistics.median(v), "all": v} for mode, v in seconds.items()
            },
            "runaway": rows,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
