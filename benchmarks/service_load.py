"""Load on one ``serve`` process over 127.0.0.1: throughput, latency, and /healthz under load.

The server runs in a child process (this file with ``--serve``) and the load comes from
``--clients`` other processes (this file with ``--client``), so no interpreter is shared; on a
small machine they still share the cores. Three scenarios, each bounded by a request
count and a time limit:

* ``offline``: the default policy with the offline judge (CPU-bound scoring);
* ``scripted``: a judge that answers every call after a fixed delay (200 ms by default), the
  shape of a hosted LLM: the server's own overhead and concurrency decide throughput (it
  supports every claim, so turns pass: no escalation write per turn);
* ``healthz``: one maximal request (the default ``RequestLimits``: a 100,000-character answer
  and 1,000,000 characters of context) scored with the offline judge while ``/healthz`` is
  polled every 50 ms.

    python benchmarks/service_load.py [--requests 800] [--concurrency 24]
        [--scripted-concurrency 96] [--clients 2] [--json-out PATH]

Prints a table and writes JSON (default ``benchmarks/results/service_load.json``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
KEY = "service-load-benchmark-key"
#: The scripted scenario's judge-call concurrency (the policy's scorer.max_concurrency).
SCRIPTED_CONCURRENCY = 1024
BODY = {
    "question": "Can pregnant women take ibuprofen for back pain?",
    "answer": "Ibuprofen is safe in the first two trimesters. Paracetamol is the first choice.",
    "contexts": [
        "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
        "generally considered the first choice for pain relief during pregnancy."
    ],
}


# --- the server side ---------------------------------------------------------------------------


def serve(mode: str, port: int, delay_s: float, workdir: Path) -> None:
    """Run the service (in this process) for ``mode``; blocks until killed."""
    import uvicorn

    from guardrail.guard import Guard
    from guardrail.judges import JudgeRequest, ScriptedJudge
    from guardrail.queues import SQLiteQueue
    from guardrail.server import create_app
    from guardrail.server.app import tune_serving_process
    from guardrail.serving.limits import RequestLimits

    judge = None
    if mode == "scripted":

        async def reply(request: JudgeRequest) -> str:
            await asyncio.sleep(delay_s)
            if request.task == "decompose":
                return json.dumps([BODY["answer"]])
            if request.task in ("synonym", "antonym"):
                word = "opposite" if request.task == "antonym" else "same"
                return "\n".join(f"{word} claim {i}" for i in range(request.inputs["count"]))
            if "opposite" in str(request.inputs.get("statement", "")):
                return "NO. The passages say otherwise."
            return "YES. The passages say so."

        judge = ScriptedJudge(reply, judge_name="scripted")
    policy = workdir / "policy.yaml"
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    if mode == "scripted":  # a hosted API's calls are I/O: let many be in flight
        text = text.replace("max_concurrency: 64", f"max_concurrency: {SCRIPTED_CONCURRENCY}")
    policy.write_text(text, encoding="utf-8")
    guard = Guard.from_yaml(
        policy,
        judge=judge,
        audit_log=workdir / "audit.jsonl",
        review_db=workdir / "review.sqlite3",
        fallback_log=workdir / "fallback.jsonl",
    )
    app = create_app(
        checker=guard,
        queue=SQLiteQueue(workdir / "review.sqlite3"),
        api_key=KEY,
        reviewer_tokens={},
        review_ui=False,
        limits=RequestLimits(max_in_flight=512),
    )
    tune_serving_process()  # as `guardrail serve` does
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# --- the client side ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """A ``--serve`` child process on a free port, stopped on exit."""

    def __init__(self, mode: str, delay_s: float, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        argv = [sys.executable, __file__, "--serve", mode, "--port", str(self.port)]
        argv += ["--delay-ms", str(int(delay_s * 1000)), "--workdir", str(workdir)]
        self.proc = subprocess.Popen(argv, env=os.environ.copy())

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def load(url: str, requests: int, concurrency: int, limit_s: float) -> dict[str, Any]:
    """``requests`` POST /v1/check at ``concurrency``, stopping early at ``limit_s``; the raw
    latencies, outcomes and wall-clock start and end."""
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    pending = iter(range(requests))
    deadline = time.perf_counter() + limit_s
    headers = {"Authorization": f"Bearer {KEY}"}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:

        async def worker() -> None:
            for _ in pending:
                if time.perf_counter() > deadline:
                    return
                t0 = time.perf_counter()
                try:
                    r = await client.post("/v1/check", json=BODY, headers=headers)
                    outcome = str(r.status_code)
                except httpx.HTTPError as exc:  # counted, not fatal: the table shows them
                    outcome = type(exc).__name__
                latencies.append(time.perf_counter() - t0)
                statuses[outcome] = statuses.get(outcome, 0) + 1

        started = time.time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return {"latencies": latencies, "statuses": statuses, "start": started, "end": time.time()}


def load_from_processes(
    url: str, requests: int, concurrency: int, clients: int, limit_s: float
) -> dict[str, Any]:
    """:func:`load` split over ``clients`` processes (one httpx client with a hundred open
    connections becomes the bottleneck itself); figures over all of them."""
    argv = [sys.executable, __file__, "--client", url, str(requests // clients)]
    argv += [str(concurrency // clients), str(limit_s)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(clients)]
    parts = [json.loads(p.communicate()[0]) for p in procs]
    latencies = [x for part in parts for x in part["latencies"]]
    statuses: dict[str, int] = {}
    for part in parts:
        for key, n in part["statuses"].items():
            statuses[key] = statuses.get(key, 0) + n
    wall = max(p["end"] for p in parts) - min(p["start"] for p in parts)
    return {
        "requests": len(latencies),
        "concurrency": concurrency,
        "client_processes": clients,
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(latencies) / wall, 1) if wall else 0.0,
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1),
        "p95_ms": round(1000 * percentile(latencies, 0.95), 1),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
        "statuses": statuses,
    }


def maximal_body() -> dict[str, Any]:
    """The largest request the default RequestLimits accept."""
    rng = random.Random(0)
    words = "museum opens weekdays entry costs euros children free tours garden cafe".split()

    def text(n: int) -> str:
        out = " ".join(rng.choice(words) for _ in range(n // 6 + 1))
        return out[: n - 1] + "."

    return {
        "question": "When does the museum open?",
        "answer": text(100_000),
        "contexts": [text(100_000) for _ in range(10)],
    }


async def healthz_under_load(url: str, poll_s: float) -> dict[str, Any]:
    """Poll /healthz while one maximal request is scored; latencies of the polls."""
    polls: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        check = asyncio.create_task(
            client.post(
                "/v1/check", json=maximal_body(), headers={"Authorization": f"Bearer {KEY}"}
            )
        )
        t0 = time.perf_counter()
        while not check.done():
            p0 = time.perf_counter()
            r = await client.get("/healthz")
            if r.status_code == 200 and not check.done():
                polls.append(time.perf_counter() - p0)
            await asyncio.sleep(poll_s)
        response = await check
        scored_s = time.perf_counter() - t0
    return {
        "maximal_request_status": response.status_code,
        "maximal_request_s": round(scored_s, 2),
        "healthz_polls": len(polls),
        "healthz_p50_ms": round(1000 * percentile(polls, 0.50), 1),
        "healthz_p99_ms": round(1000 * percentile(polls, 0.99), 1),
        "healthz_max_ms": round(1000 * max(polls, default=0.0), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=800, help="per load scenario")
    ap.add_argument("--concurrency", type=int, default=24, help="offline scenario")
    ap.add_argument("--scripted-concurrency", type=int, default=96)
    ap.add_argument("--delay-ms", type=int, default=200, help="scripted judge, per call")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per scenario")
    ap.add_argument("--json-out", default="benchmarks/results/service_load.json")
    ap.add_argument("--clients", type=int, default=2, help="client processes per scenario")
    ap.add_argument("--serve", choices=["offline", "scripted"], help=argparse.SUPPRESS)
    ap.add_argument("--client", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.delay_ms / 1000, args.workdir)
        return
    if args.client:
        url, n, conc, limit = args.client
        print(json.dumps(asyncio.run(load(url, int(n), int(conc), float(limit)))))
        return
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, conc in (("offline", args.concurrency), ("scripted", args.scripted_concurrency)):
            workdir = Path(tmp) / mode
            workdir.mkdir()
            with Server(mode, args.delay_ms / 1000, workdir) as server:
                results[mode] = load_from_processes(
                    server.url, args.requests, conc, args.clients, args.time_limit
                )
        workdir = Path(tmp) / "healthz"
        workdir.mkdir()
        with Server("offline", 0.0, workdir) as server:
            results["healthz"] = asyncio.run(healthz_under_load(server.url, 0.05))
    table = Table(title="One serve process on 127.0.0.1 (client in another process)")
    for col in ("scenario", "requests", "conc.", "req/s", "p50 ms", "p95 ms", "p99 ms", "status"):
        table.add_column(col, justify="left" if col in ("scenario", "status") else "right")
    for mode in ("offline", "scripted"):
        r = results[mode]
        label = mode if mode == "offline" else f"scripted judge, {args.delay_ms} ms/call"
        table.add_row(
            label, str(r["requests"]), str(r["concurrency"]), f"{r['requests_per_s']:.1f}",
            f"{r['p50_ms']:.0f}", f"{r['p95_ms']:.0f}", f"{r['p99_ms']:.0f}",
            json.dumps(r["statuses"]),
        )  # fmt: skip
    console = Console()
    console.print(table)
    h = results["healthz"]
    console.print(
        f"/healthz while a maximal request is scored ({h['maximal_request_s']} s, status "
        f"{h['maximal_request_status']}): {h['healthz_polls']} polls, p50 "
        f"{h['healthz_p50_ms']} ms, p99 {h['healthz_p99_ms']} ms, max {h['healthz_max_ms']} ms"
    )
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "benchmark": "service_load",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "delay_ms": args.delay_ms,
        "results": results,
    }
    out.write_text(json.dumps(payload, indent=2) + "\n")
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
