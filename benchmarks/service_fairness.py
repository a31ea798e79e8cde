"""Small checks and /healthz while maximal checks are scored: does any request starve?

Starts ``guardrail serve`` (default policy, offline judge, default limits) on 127.0.0.1. After
a baseline (nothing large for 10 s), for each wave of 1, 4 and 16 *maximal* checks — an
answer of 4 distinct sentences against 5 contexts of 49,000 characters, i.e. just within the
default work budget (``--max-work`` 1,000,000: 4 x 245,000 plus ten per answer character) —
it sends the wave at once and lets a quarter of those clients (at least one) disconnect
after 1 s; meanwhile one client sends small checks back to back (a one-sentence answer, one
short context) and another polls /healthz every 50 ms. It reports the p50/p99 latency of
both, how the maximal checks ended, and whether every turn that reached scoring has an audit
record (answered ones by their audit id; abandoned ones by the count of records).

With ``--target proxy`` the same waves go through a real ``guardrail proxy`` (default policy
and limits) in front of a fake upstream the benchmark serves on 127.0.0.1
(:mod:`benchmarks._proxy_cases`): a maximal request carries the same contexts (in
``guardrail.contexts``) and the upstream answers with the same answer; the small one likewise.
``--large gamed`` sends, instead of maximal checks, the gamed answer — one sentence of 200
clauses joined by ``"; "`` — against a 100 KB context.

    python -m benchmarks.service_fairness [--target serve|proxy] [--large maximal|gamed]
        [--waves 0,1,4,16] [--json-out PATH]

Targets: while 4 maximal checks are scored, small checks p99 < 1 s and /healthz p99 < 100 ms;
0 turns without an audit record.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks._common import write_results
from benchmarks._serve import API_KEY, proxy, serve

HEADERS = {"Authorization": f"Bearer {API_KEY}"}
SMALL = {
    "question": "When is the city library open on Saturdays?",
    "answer": "The city library is open on Saturdays from 10:00 to 14:00.",
    "contexts": ["The city library is open on Saturdays from 10:00 to 14:00."],
}
WORDS = (
    "library clinic permit office visa refund contract payroll invoice doctor nurse form "
    "deadline week month employer student tenant landlord court appeal insurance claim"
).split()
#: The longest a wave may run (its maximal checks end by their 30 s deadline well before).
WAVE_LIMIT_S = 120.0


def maximal_body(seed: int) -> dict[str, Any]:
    """4 sentences x 5 contexts of 49,000 characters: work 4 x 245,000 + 10 x the answer's
    characters, just within the default budget."""
    rng = random.Random(seed)

    def sentence(i: int) -> str:
        a, b, c = rng.sample(WORDS, 3)
        return f"The {a} number {i} is handled by the {b} office within {rng.randint(2, 60)} {c}s."

    def context() -> str:
        parts: list[str] = []
        size = 0
        while size < 49_000:
            parts.append(sentence(rng.randint(0, 10**6)))
            size += len(parts[-1]) + 1
        return " ".join(parts)[:49_000]

    return {
        "question": "Who handles the request?",
        "answer": " ".join(sentence(i) for i in range(4)),
        "contexts": [context() for _ in range(5)],
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def gamed_body(seed: int) -> dict[str, Any]:
    """One sentence of 200 clauses joined by "; " against a 100 KB context."""
    from benchmarks._proxy_cases import BIG_CONTEXT, GAMED

    return {"question": "Who handles the request?", "answer": GAMED, "contexts": [BIG_CONTEXT]}


@dataclass(frozen=True)
class Target:
    """How a check is posted to the server under test, and read back."""

    path: str
    #: A check ``{"question", "answer", "contexts"}`` (and the seed the proxy's upstream
    #: answers for) as the request body.
    body: Callable[[dict[str, Any], str], dict[str, Any]]
    #: The reply's audit id and decision, from its JSON.
    summary: Callable[[dict[str, Any]], dict[str, Any]]


SERVE = Target("/v1/check", lambda check, model: check, lambda data: data)


def _proxy_body(check: dict[str, Any], model: str) -> dict[str, Any]:
    from benchmarks._proxy_cases import chat

    return chat(model, question=check["question"], contexts=check["contexts"])


PROXY = Target("/v1/chat/completions", _proxy_body, lambda data: data.get("guardrail") or {})


def run_wave(
    url: str, n_max: int, seed: int, target: Target = SERVE, large: str = "maximal"
) -> dict[str, Any]:
    """One wave: ``n_max`` maximal (or gamed) checks, a quarter of them abandoned, small
    checks and /healthz measured until every large check has ended."""
    make = maximal_body if large == "maximal" else gamed_body
    bodies = [
        target.body(make(seed + i), f"maximal:{seed + i}" if large == "maximal" else "gamed")
        for i in range(n_max)
    ]
    small_body = target.body(SMALL, "small")
    leaving = max(1, n_max // 4) if n_max else 0
    outcomes: list[dict[str, Any]] = [{} for _ in range(n_max)]
    done = threading.Event()

    def maximal(i: int) -> None:
        started = time.perf_counter()
        timeout = 1.0 if i < leaving else WAVE_LIMIT_S
        try:
            r = httpx.post(f"{url}{target.path}", json=bodies[i], headers=HEADERS, timeout=timeout)
            summary = target.summary(r.json()) if r.status_code == 200 else {}
            decision = summary.get("decision", {})
            error = decision.get("error") if isinstance(decision, dict) else summary.get("error")
            outcomes[i] = {
                "status": r.status_code,
                "seconds": time.perf_counter() - started,
                "audit_id": summary.get("audit_id"),
                "error": (error or summary.get("reason") or "")[:60],
            }
        except httpx.TimeoutException:
            outcomes[i] = {"status": "disconnected", "seconds": time.perf_counter() - started}

    small_latency: list[float] = []
    small_ids: list[str] = []
    small_status: dict[str, int] = {}
    health_latency: list[float] = []

    def small_loop() -> None:
        with httpx.Client(base_url=url, headers=HEADERS, timeout=60) as client:
            while not done.is_set():
                started = time.perf_counter()
                r = client.post(target.path, json=small_body)
                small_latency.append(time.perf_counter() - started)
                small_status[str(r.status_code)] = small_status.get(str(r.status_code), 0) + 1
                if r.status_code == 200:
                    small_ids.append(target.summary(r.json())["audit_id"])
                time.sleep(0.02)

    def health_loop() -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while not done.is_set():
                started = time.perf_counter()
                client.get("/healthz")
                health_latency.append(time.perf_counter() - started)
                time.sleep(0.05)

    background = [threading.Thread(target=small_loop), threading.Thread(target=health_loop)]
    for t in background:
        t.start()
    time.sleep(0.5)  # the small stream is flowing before the wave arrives
    wave_started = time.perf_counter()
    workers = [threading.Thread(target=maximal, args=(i,)) for i in range(n_max)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(WAVE_LIMIT_S)
    if not workers:  # the baseline: the same streams for 10 s with nothing large
        time.sleep(10.0)
    wave_seconds = time.perf_counter() - wave_started
    done.set()
    for t in background:
        t.join(60)
    return {
        "maximal": n_max,
        "abandoned_by_client": leaving,
        "wave_seconds": round(wave_seconds, 2),
        "small_checks": len(small_latency),
        "small_status": small_status,
        "small_p50_s": round(pct(small_latency, 0.5), 3),
        "small_p99_s": round(pct(small_latency, 0.99), 3),
        "small_max_s": round(max(small_latency, default=float("nan")), 3),
        "healthz_polls": len(health_latency),
        "healthz_p50_ms": round(1000 * pct(health_latency, 0.5), 1),
        "healthz_p99_ms": round(1000 * pct(health_latency, 0.99), 1),
        "maximal_outcomes": outcomes,
        "maximal_median_s": round(statistics.median(o["seconds"] for o in outcomes), 2)
        if outcomes
        else 0.0,
        "_small_ids": small_ids,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--waves", default="0,1,4,16", help="maximal checks per wave (0: a baseline)"
    )
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--target", choices=("serve", "proxy"), default="serve")
    parser.add_argument("--large", choices=("maximal", "gamed"), default="maximal")
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="extra `guardrail serve` argument (repeat), e.g. --serve-arg=--scoring-threads=1",
    )
    args = parser.parse_args(argv)
    waves = [int(x) for x in args.waves.split(",")]
    console = Console()
    results: list[dict[str, Any]] = []
    target = PROXY if args.target == "proxy" else SERVE
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        if args.target == "proxy":
            from benchmarks._proxy_cases import fake_upstream
            from guardrail.server.testing import serve_in_thread

            upstream_url = stack.enter_context(serve_in_thread(fake_upstream()))
            server = stack.enter_context(proxy(Path(tmp), f"{upstream_url}/v1", *args.serve_arg))
        else:
            server = stack.enter_context(serve(Path(tmp), *args.serve_arg))
        expected_ids: set[str] = set()
        reached_scoring = 0
        small_sent = 0
        for n, wave in enumerate(waves):
            console.print(f"wave of {wave} maximal checks ...")
            result = run_wave(server.url, wave, 1000 * n, target, args.large)
            expected_ids.update(result.pop("_small_ids"))
            small_sent += result["small_checks"]
            for o in result["maximal_outcomes"]:
                if o.get("audit_id"):
                    expected_ids.add(o["audit_id"])
                if o["status"] != 413:  # every other maximal check reached the guard
                    reached_scoring += 1
            results.append(result)
            time.sleep(2.0)  # abandoned turns finish their audit records
        _, peak_mb = server.rss_mb()
        expected_turns = small_sent + reached_scoring
        turns = server.audited_turns()
    audited = {t["audit_id"] for t in turns}
    abandoned_records = sum(
        1 for t in turns if ((t.get("decision") or {}).get("error") or "").startswith("abandoned")
    )
    failed = sum(1 for t in turns if t.get("event_name") == "turn_failed")
    summary = {
        "answered_turns_without_record": len(expected_ids - audited),
        "turns_without_record": expected_turns - len(turns),
        "turn_records": len(turns) - failed,
        "turn_failed_records": failed,
        "abandoned_records": abandoned_records,
        "maximal_checks_reaching_scoring": reached_scoring,
        "server_peak_rss_mb": round(peak_mb, 1),
    }
    summary = {"target": args.target, "large": args.large, **summary}
    title = f"{args.target}: small checks and /healthz while {args.large} checks are scored"
    table = Table(title=title)
    for col in ("maximal", "wave s", "small n", "small p50 s", "small p99 s", "healthz p50 ms",
                "healthz p99 ms", "maximal median s", "maximal outcomes"):  # fmt: skip
        table.add_column(col, justify="right", overflow="fold")
    for r in results:
        kinds: dict[str, int] = {}
        for o in r["maximal_outcomes"]:
            key = str(o["status"]) + (" deadline" if "deadline" in o.get("error", "") else "")
            kinds[key] = kinds.get(key, 0) + 1
        table.add_row(
            str(r["maximal"]), f"{r['wave_seconds']:.1f}", str(r["small_checks"]),
            f"{r['small_p50_s']:.3f}", f"{r['small_p99_s']:.3f}", f"{r['healthz_p50_ms']:.1f}",
            f"{r['healthz_p99_ms']:.1f}", f"{r['maximal_median_s']:.1f}",
            ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())),
        )  # fmt: skip
    console.print(table)
    console.print(summary)
    out = write_results("service_fairness", {"waves": results, **summary}, args.json_out)
    console.print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
