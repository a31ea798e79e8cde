"""Streaming and the proxy: what the guard adds to time-to-first-token, to each sentence, and to
a proxied request.

Four measurements, all with the offline judge (``policies/default.yaml``):

1. **Time to first token and per-sentence delay.** A scripted model yields a supported answer
   (four sentences, a word every ``--token-ms``) for a general question (``release``) and a
   pregnancy question (``hold``). Against the model read directly: the added time to the
   first token, the delay of each released chunk (release) and of each released sentence
   after the chunk that completed it (hold).
2. **Safety.** Turns whose second sentence contradicts the context, in ``hold``: how many
   unsafe sentences were released (must be 0), and turns without an audit record (must be 0).
3. **Memory** of one 10,000-chunk stream (``release`` and ``hold``): tracemalloc's peak.
4. **The proxy.** ``guardrail proxy`` (its own process) in front of a scripted upstream on
   127.0.0.1: non-streamed requests/s at ``--concurrency`` against the upstream directly, and
   the proxy's own cost per sequential request beyond the offline check (pairs of requests,
   direct then proxied: the proxied latency less the guard's time from the proxy's
   ``Server-Timing`` header less the direct latency, p50 over the pairs).

    python -m benchmarks.streaming [--turns 20] [--token-ms 10] [--chunks 10000]
        [--requests 200] [--concurrency 8] [--skip-memory] [--skip-proxy] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog
from guardrail.guard import Guard
from guardrail.local_server import free_port
from guardrail.policy import load_policy
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.queues import SQLiteQueue
from guardrail.queues.jsonl import JSONLSink
from guardrail.server.testing import serve_in_thread, wait_until_healthy

POLICY = repo_root() / "policies" / "default.yaml"
GENERAL_Q = "When was the Eiffel Tower completed?"
GENERAL_CTX = [
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair. It is 330 "
    "metres tall. It was designed by the engineering company of Gustave Eiffel."
]
GENERAL_A = (
    "The Eiffel Tower was completed in 1889 for the World's Fair. It is in Paris. "
    "The tower is 330 metres tall. It was designed by the company of Gustave Eiffel."
)
HOLD_Q = "I'm pregnant: can I take paracetamol for back pain?"
HOLD_CTX = [
    "Paracetamol is generally considered the first choice for pain relief during pregnancy. "
    "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy. "
    "Take the lowest effective dose of paracetamol for the shortest time."
]
HOLD_A = (
    "Paracetamol is generally considered the first choice for pain relief during pregnancy. "
    "Take the lowest effective dose of paracetamol for the shortest time. "
    "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy. "
    "Paracetamol is the first choice for pain relief during pregnancy."
)
UNSAFE = "Ibuprofen is completely safe in every trimester of pregnancy."
UNSAFE_A = (
    "Paracetamol is generally considered the first choice for pain relief during pregnancy. "
    f"{UNSAFE} Take the lowest effective dose of paracetamol for the shortest time."
)


def words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p + " " for p in parts[:-1]] + [parts[-1]]


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=10)[-1]


class Model:
    """A scripted model: yields ``chunks`` with a pause before each; notes when each left."""

    def __init__(self, chunks: list[str], pause_s: float) -> None:
        self.chunks = chunks
        self.pause_s = pause_s
        self.sent_at: list[float] = []

    async def stream(self) -> AsyncIterator[str]:
        for chunk in self.chunks:
            if self.pause_s:
                await asyncio.sleep(self.pause_s)
            self.sent_at.append(time.perf_counter())
            yield chunk


def build_guard(directory: Path) -> Guard:
    escalator = Escalator(
        default=SQLiteQueue(directory / "review.sqlite3"),
        fallback=JSONLSink(directory / "fallback.jsonl"),
    )
    audit = AuditLog(directory / "audit.jsonl", fsync=False)
    return Guard(load_policy(POLICY), escalator=escalator, audit=audit)


def last_chunk_of(chunks: list[str], end: int) -> int:
    """Index of the chunk holding character ``end - 1`` of the concatenated chunks."""
    total = 0
    for i, chunk in enumerate(chunks):
        total += len(chunk)
        if total >= end:
            return i
    return len(chunks) - 1


async def direct_ttft(answer: str, pause_s: float) -> float:
    model = Model(words(answer), pause_s)
    start = time.perf_counter()
    async for _ in model.stream():
        return time.perf_counter() - start
    return float("nan")


async def guarded_turn(
    guard: Guard, question: str, answer: str, contexts: list[str], pause_s: float
) -> dict[str, Any]:
    """One guarded turn: time to first piece, per-piece delays, what was shown."""
    model = Model(words(answer), pause_s)
    stream = guard.astream(question, model.stream(), contexts)
    start = time.perf_counter()
    first: float | None = None
    delays: list[float] = []
    shown = ""
    async for piece in stream:
        now = time.perf_counter()
        if first is None:
            first = now - start
        produced = sum(len(c) for c in model.chunks[: len(model.sent_at)])
        if len(shown) + len(piece.rstrip()) <= produced:  # upstream text, not a notice
            end = len(shown) + len(piece.rstrip())
            delays.append(now - model.sent_at[last_chunk_of(model.chunks, end)])
        shown += piece
    return {
        "ttft": first,
        "delays": delays,
        "shown": shown,
        "mode": stream.mode,
        "result": stream.result,
    }


async def latency(args: argparse.Namespace, guard: Guard) -> dict[str, Any]:
    pause = args.token_ms / 1000
    out: dict[str, Any] = {}
    for mode, question, answer, contexts in (
        ("release", GENERAL_Q, GENERAL_A, GENERAL_CTX),
        ("hold", HOLD_Q, HOLD_A, HOLD_CTX),
    ):
        await guarded_turn(guard, question, answer, contexts, pause)  # warm-up
        added, delays, direct = [], [], []
        seen_mode = None
        for _ in range(args.turns):
            d = await direct_ttft(answer, pause)
            turn = await guarded_turn(guard, question, answer, contexts, pause)
            seen_mode = turn["mode"]
            direct.append(d)
            added.append(turn["ttft"] - d)
            delays.extend(turn["delays"])
        out[mode] = {
            "mode_seen": seen_mode,
            "direct_ttft_ms_p50": p50(direct) * 1000,
            "added_ttft_ms_p50": p50(added) * 1000,
            "added_ttft_ms_p90": p90(added) * 1000,
            "release_delay_ms_p50": p50(delays) * 1000,
            "release_delay_ms_p90": p90(delays) * 1000,
            "pieces_timed": len(delays),
        }
    return out


async def safety(args: argparse.Namespace, guard: Guard, audit: Path) -> dict[str, Any]:
    before = _records(audit)
    released_unsafe = 0
    turns = max(5, args.turns // 2)
    ids = []
    for _ in range(turns):
        turn = await guarded_turn(guard, HOLD_Q, UNSAFE_A, HOLD_CTX, 0.0)
        released_unsafe += UNSAFE in turn["shown"]
        ids.append(turn["result"].audit_id)
    # and consumers that stop after the first sentence
    for _ in range(turns):
        model = Model(words(UNSAFE_A), 0.0)
        stream = guard.astream(HOLD_Q, model.stream(), HOLD_CTX)
        async for piece in stream:
            released_unsafe += UNSAFE in piece
            break
        await stream.aclose()
        ids.append(stream.audit_id)
    recorded = {r["audit_id"] for r in _records(audit)[len(before) :]}
    return {
        "turns": len(ids),
        "unsafe_sentences_released": released_unsafe,
        "turns_without_audit_record": sum(1 for i in ids if i not in recorded),
    }


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def memory(args: argparse.Namespace, guard: Guard) -> dict[str, Any]:
    sentence = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
    chunks = (words(sentence) * (args.chunks // len(words(sentence)) + 1))[: args.chunks]
    out: dict[str, Any] = {"chunks": len(chunks), "answer_chars": sum(map(len, chunks))}
    for mode, question in (("release", GENERAL_Q), ("hold", HOLD_Q)):
        model = Model(chunks, 0.0)
        tracemalloc.start()
        start = time.perf_counter()
        stream = guard.astream(question, model.stream(), GENERAL_CTX)
        pieces = 0
        async for _ in stream:
            pieces += 1
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[mode] = {
            "mode_seen": stream.mode,
            "peak_mib": peak / 2**20,
            "seconds": seconds,
            "pieces": pieces,
        }
    return out


def _load(url: str, body: dict[str, Any], requests: int, concurrency: int) -> dict[str, float]:
    """``requests`` non-streamed POSTs from ``concurrency`` threads: requests/s and latency."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = iter(range(requests))

    def worker() -> None:
        nonlocal errors
        with httpx.Client(timeout=60) as client:
            while True:
                with lock:
                    if next(counter, None) is None:
                        return
                t0 = time.perf_counter()
                status = client.post(url, json=body).status_code
                with lock:
                    latencies.append(time.perf_counter() - t0)
                    errors += status != 200

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {
        "requests": len(latencies),
        "errors": errors,
        "requests_per_s": len(latencies) / wall,
        "latency_ms_p50": p50(latencies) * 1000,
        "latency_ms_p90": p90(latencies) * 1000,
    }


def _guard_ms(response: httpx.Response) -> float:
    timing = response.headers.get("server-timing", "")
    return next(float(p.split("dur=")[1]) for p in timing.split(",") if "guard;" in p)


def _paired(
    direct_url: str, direct_body: dict[str, Any], proxy_url: str, body: dict[str, Any], n: int
) -> dict[str, float]:
    """``n`` pairs of sequential requests, direct then through the proxy, so both see the same
    machine load: the proxy's own cost per pair is its latency less the guard's time (its
    ``Server-Timing``) less the direct request's latency."""
    own, beyond, direct, proxied = [], [], [], []
    with httpx.Client(timeout=60) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            client.post(direct_url, json=direct_body).raise_for_status()
            t1 = time.perf_counter()
            response = client.post(proxy_url, json=body)
            t2 = time.perf_counter()
            response.raise_for_status()
            guard_s = _guard_ms(response) / 1000
            direct.append(t1 - t0)
            proxied.append(t2 - t1)
            beyond.append(t2 - t1 - guard_s)
            own.append(t2 - t1 - guard_s - (t1 - t0))
    return {
        "pairs": n,
        "direct_ms_p50": p50(direct) * 1000,
        "proxy_ms_p50": p50(proxied) * 1000,
        "proxy_less_guard_ms_p50": p50(beyond) * 1000,
        "proxy_overhead_beyond_check_ms_p50": p50(own) * 1000,
        "proxy_overhead_beyond_check_ms_p90": p90(own) * 1000,
    }


def proxy_benchmark(args: argparse.Namespace, guard: Guard, workdir: Path) -> dict[str, Any]:
    app = scripted_upstream(lambda body: ScriptedReply(GENERAL_A))
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": GENERAL_Q}],
        "guardrail": {"contexts": GENERAL_CTX},
    }
    direct_body = {k: v for k, v in body.items() if k != "guardrail"}
    check_s = []
    for _ in range(max(20, args.turns)):
        t0 = time.perf_counter()
        guard.check(GENERAL_Q, GENERAL_A, GENERAL_CTX)
        check_s.append(time.perf_counter() - t0)
    with serve_in_thread(app) as upstream:  # type: ignore[arg-type]
        port = free_port()
        audit = workdir / "proxy-audit.jsonl"
        command = [
            sys.executable, "-m", "guardrail", "proxy", "--upstream", f"{upstream}/v1",
            "--policy", str(POLICY), "--port", str(port), "--audit-log", str(audit),
            "--db", str(workdir / "proxy-review.sqlite3"),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(repo_root())}
        log = open(workdir / "proxy.log", "ab")  # noqa: SIM115 - closed below
        process = subprocess.Popen(command, cwd=workdir, env=env, stdout=log, stderr=log)
        try:
            proxy = f"http://127.0.0.1:{port}"
            wait_until_healthy(proxy, process, timeout_s=120)
            target = f"{proxy}/v1/chat/completions"
            _load(target, body, 10, 1)  # warm-up
            sequential = _paired(
                f"{upstream}/v1/chat/completions", direct_body, target, body, args.sequential
            )
            direct = _load(
                f"{upstream}/v1/chat/completions", direct_body, args.requests, args.concurrency
            )
            proxied = _load(target, body, args.requests, args.concurrency)
        finally:
            process.terminate()
            process.wait(timeout=30)
            log.close()
    turns = len(_records(audit))
    return {
        "offline_check_ms_p50_in_process": p50(check_s) * 1000,
        "sequential": sequential,
        "concurrent_direct": direct,
        "concurrent_proxy": proxied,
        "proxied_requests": 10 + args.sequential + args.requests,
        "turns_without_audit_record": 10 + args.sequential + args.requests - turns,
        "proxy_audit_records": turns,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--turns", type=int, default=20, help="timed turns per mode")
    ap.add_argument("--token-ms", type=float, default=10.0, help="model pause per chunk")
    ap.add_argument("--chunks", type=int, default=10_000, help="chunks of the memory stream")
    ap.add_argument("--requests", type=int, default=200, help="concurrent proxy requests")
    ap.add_argument("--sequential", type=int, default=50, help="sequential proxy requests")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-proxy", action="store_true")
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args(argv)
    console = Console()
    payload: dict[str, Any] = {"settings": {k: v for k, v in vars(args).items() if k != "json_out"}}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        guard = build_guard(workdir)
        try:
            payload["latency"] = asyncio.run(latency(args, guard))
            payload["safety"] = asyncio.run(safety(args, guard, workdir / "audit.jsonl"))
            if not args.skip_memory:
                payload["memory"] = asyncio.run(memory(args, guard))
            if not args.skip_proxy:
                payload["proxy"] = proxy_benchmark(args, guard, workdir)
        finally:
            guard.close()
    _print(console, payload)
    path = write_results("streaming", payload, args.json_out)
    console.print(f"wrote {path}")
    return 0


def _print(console: Console, payload: dict[str, Any]) -> None:
    table = Table(
        title="Streaming: guard vs the model read directly (offline judge); hold's first token "
        "waits for the first whole sentence"
    )
    for col in ("mode", "direct TTFT p50", "added TTFT p50 / p90", "release delay p50 / p90"):
        table.add_column(col)
    for mode, row in payload["latency"].items():
        table.add_row(
            f"{mode} ({row['mode_seen']})",
            f"{row['direct_ttft_ms_p50']:.1f} ms",
            f"{row['added_ttft_ms_p50']:.1f} / {row['added_ttft_ms_p90']:.1f} ms",
            f"{row['release_delay_ms_p50']:.1f} / {row['release_delay_ms_p90']:.1f} ms "
            f"({row['pieces_timed']} pieces)",
        )
    console.print(table)
    s = payload["safety"]
    console.print(
        f"safety: {s['turns']} unsafe hold turns, {s['unsafe_sentences_released']} unsafe "
        f"sentences released, {s['turns_without_audit_record']} turns without an audit record"
    )
    if "memory" in payload:
        m = payload["memory"]
        for mode in ("release", "hold"):
            console.print(
                f"memory, {m['chunks']} chunks ({m['answer_chars']} chars), {mode}: peak "
                f"{m[mode]['peak_mib']:.1f} MiB, {m[mode]['seconds']:.1f} s (under tracemalloc)"
            )
    if "proxy" in payload:
        p = payload["proxy"]
        table = Table(title="Proxy vs the scripted upstream directly (non-streamed)")
        for col in ("", "requests/s", "p50", "p90", "errors"):
            table.add_column(col)
        for name in ("concurrent_direct", "concurrent_proxy"):
            r = p[name]
            table.add_row(
                name.replace("_", " "),
                f"{r['requests_per_s']:.1f}",
                f"{r['latency_ms_p50']:.1f} ms",
                f"{r['latency_ms_p90']:.1f} ms",
                str(r["errors"]),
            )
        console.print(table)
        q = p["sequential"]
        console.print(
            f"sequential, {q['pairs']} pairs: direct p50 {q['direct_ms_p50']:.1f} ms, proxy p50 "
            f"{q['proxy_ms_p50']:.1f} ms ({q['proxy_less_guard_ms_p50']:.1f} ms without the "
            f"guard's own time); proxy overhead beyond the check p50 "
            f"{q['proxy_overhead_beyond_check_ms_p50']:.1f} ms, p90 "
            f"{q['proxy_overhead_beyond_check_ms_p90']:.1f} ms (offline check in this process: "
            f"p50 {p['offline_check_ms_p50_in_process']:.1f} ms)"
        )
        console.print(
            f"{p['proxy_audit_records']} audit records for {p['proxied_requests']} proxied requests"
        )


if __name__ == "__main__":
    sys.exit(main())
