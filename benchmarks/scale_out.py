"""Scale-out: ``guardrail serve`` replicas sharing one PostgreSQL, with reviewers working the queue.

A throw-away PostgreSQL cluster (durable: ``fsync`` on) listens on 127.0.0.1. Two scenarios run
the same work against a fresh database each:

* ``1 replica``: one ``guardrail serve --db URL --audit-log URL`` process;
* ``2 replicas``: two such processes on two ports, the requests split between them.

Each scenario sends ``--requests`` turns (default 2,000; the two turns of
``fault_injection.py``: a sensitive medical one that escalates, a library one that passes) from
``--clients`` load processes with ``--concurrency`` requests in flight in all, with the offline
judge; meanwhile ``--reviewers`` reviewers (threads in another process, as on other desks) claim
and resolve the escalations until none is left: half take ``claim_next`` (``FOR UPDATE SKIP
LOCKED``), half pick one of the oldest open cases and race for it with ``claim``. Then it counts:

* answered turns missing from the audit trail (target 0);
* answered escalations missing from the review queue (target 0);
* cases two reviewers both claimed (target 0), and resolutions missing from the trail (0);
* whether the chain verifies (``guardrail audit verify URL``, run as a command);
* requests/s of two replicas over one (target >= 1.6), with the CPU seconds each part used
  (servers, PostgreSQL, load clients, reviewers) to show where the cores went.

Finally it runs ``python -m benchmarks.rescore_ray`` (batch re-scoring on Ray, its own JSON)
unless ``--skip-ray`` is given, and includes its result.

    python -m benchmarks.scale_out [--requests 2000] [--concurrency 24] [--clients 2]
        [--reviewers 8] [--skip-ray] [--json-out PATH]

Prints a table and writes JSON (default ``benchmarks/results/scale_out.json``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from benchmarks.fault_injection import TURNS
from benchmarks.service_load import KEY, free_port, percentile

ROOT = repo_root()

CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- load clients (child processes) ---------------------------------------------------------------


async def load(urls: list[str], first: int, last: int, concurrency: int) -> dict[str, Any]:
    """POST turns ``first..last-1`` (turn i to replica i % len(urls)); what each one answered."""
    answered: list[dict[str, Any]] = []
    failed: dict[str, int] = {}
    latencies: list[float] = []
    pending = iter(range(first, last))
    headers = {"Authorization": f"Bearer {KEY}"}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=300) as client:

        async def worker() -> None:
            for i in pending:
                question, answer, contexts = TURNS[i % 2]
                body = {"question": question, "answer": answer, "contexts": contexts}
                t0 = time.perf_counter()
                try:
                    r = await client.post(
                        f"{urls[i % len(urls)]}/v1/check", json=body, headers=headers
                    )
                except httpx.HTTPError as exc:
                    failed[type(exc).__name__] = failed.get(type(exc).__name__, 0) + 1
                    continue
                latencies.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    failed[str(r.status_code)] = failed.get(str(r.status_code), 0) + 1
                    continue
                result = r.json()
                answered.append(
                    {"audit_id": result["audit_id"], "action": result["decision"]["action"]}
                )

        started = time.time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return {
        "answered": answered,
        "failed": failed,
        "latencies": latencies,
        "start": started,
        "end": time.time(),
    }


# --- reviewers (one child process, one thread each) -----------------------------------------------


def review(url: str, reviewers: int, stop_file: Path) -> dict[str, Any]:
    """Reviewers claim and resolve open cases until ``stop_file`` exists and none is open."""
    from guardrail.audit.review import record_resolutions
    from guardrail.audit.trail import open_audit_log
    from guardrail.queues import CaseStateError, ReviewQueue

    queue = ReviewQueue(url, on_resolve=record_resolutions(open_audit_log(url)))
    claims: list[tuple[str, str]] = []
    lost_races = Counter[str]()
    lock = threading.Lock()

    def reviewer(n: int) -> None:
        name = f"reviewer-{n}"
        rng = random.Random(n)
        while True:
            if n % 2 == 0:
                stored = queue.claim_next(name)
            else:  # look at the list and race the others for one of the oldest cases
                open_cases = queue.list(state="open", limit=4)
                stored = None
                if open_cases:
                    try:
                        stored = queue.claim(rng.choice(open_cases).case_id, name)
                    except CaseStateError:
                        with lock:
                            lost_races[name] += 1
                        continue
            if stored is None:
                if stop_file.exists() and not queue.list(state="open", limit=1):
                    return
                time.sleep(0.05)
                continue
            with lock:
                claims.append((stored.case_id, name))
            outcome = "approved" if rng.random() < 0.5 else "rejected"
            queue.resolve(stored.case_id, outcome, reviewer=name)

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in range(reviewers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"claims": claims, "lost_races": sum(lost_races.values())}


# --- CPU accounting -------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its finished-and-waited children."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / CLK_TCK


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                found.append(int(entry.name))
    return found


def postgres_cpu(cluster: Any) -> float:
    """CPU seconds of the postmaster and every live backend and helper process."""
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    return cpu_seconds(postmaster) + sum(cpu_seconds(p) for p in children(postmaster))


# --- one scenario ---------------------------------------------------------------------------------


def start_replica(url: str, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    argv = [
        sys.executable, "-m", "guardrail", "serve", "--no-review-ui", "--port", str(port),
        "--policy", str(ROOT / "policies" / "default.yaml"), "--db", url, "--audit-log", url,
        "--api-key-env", "SCALE_OUT_KEY",
    ]  # fmt: skip
    log = (workdir / f"serve-{port}.log").open("wb")
    env = {**os.environ, "SCALE_OUT_KEY": KEY}
    return subprocess.Popen(argv, env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)


def scenario(cluster: Any, name: str, replicas: int, args: argparse.Namespace, workdir: Path):
    from guardrail.audit.recover import recorded_turns
    from guardrail.audit.trail import trail_source
    from guardrail.queues import ReviewQueue
    from guardrail.server.testing import wait_until_healthy

    url = cluster.create_database(name)
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    ports = [free_port() for _ in range(replicas)]
    servers = [start_replica(url, port, workdir) for port in ports]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base, proc in zip(bases, servers, strict=True):
            wait_until_healthy(base, proc)
        _children_cpu()  # start counting the load clients and reviewers from here
        stop_file = workdir / f"{name}.stop"
        reviewer_proc = subprocess.Popen(
            [sys.executable, __file__, "--review", url, str(args.reviewers), str(stop_file)],
            stdout=subprocess.PIPE,
        )
        cpu0 = {
            "servers": sum(cpu_seconds(p.pid) for p in servers),
            "postgres": postgres_cpu(cluster),
        }
        per_client = -(-args.requests // args.clients)
        bounds = [
            (c * per_client, min(args.requests, (c + 1) * per_client)) for c in range(args.clients)
        ]
        conc = str(args.concurrency // args.clients)
        clients = [
            subprocess.Popen(
                [sys.executable, __file__, "--load", ",".join(bases), str(a), str(b), conc],
                stdout=subprocess.PIPE,
            )
            for a, b in bounds
        ]
        parts = [json.loads(c.communicate()[0]) for c in clients]
        cpu1 = {
            "servers": sum(cpu_seconds(p.pid) for p in servers),
            "postgres": postgres_cpu(cluster),
        }
        stop_file.touch()
        reviewed = json.loads(reviewer_proc.communicate(timeout=600)[0])
        load_cpu = _children_cpu()
    finally:
        for proc in servers:
            proc.terminate()
        for proc in servers:
            proc.wait(60)

    answered = [a for p in parts for a in p["answered"]]
    failed: dict[str, int] = {}
    for p in parts:
        for k, v in p["failed"].items():
            failed[k] = failed.get(k, 0) + v
    latencies = [x for p in parts for x in p["latencies"]]
    wall = max(p["end"] for p in parts) - min(p["start"] for p in parts)

    audited = recorded_turns(url)
    queue = ReviewQueue(url)
    cases = {c.case_id: c for c in queue.list()}
    escalated = [a["audit_id"] for a in answered if a["action"] == "escalate"]
    claims = Counter(case_id for case_id, _ in reviewed["claims"])
    claimed_by = dict((case_id, who) for case_id, who in reviewed["claims"])
    resolution_records = 0
    with trail_source(url).lines() as lines:
        for raw in lines:
            resolution_records += b'"kind":"resolution"' in raw
    verify = subprocess.run(
        [sys.executable, "-m", "guardrail", "audit", "verify", url],
        capture_output=True,
        text=True,
        check=False,
    )
    return {
        "replicas": replicas,
        "load_average_before": round(load_before, 2),
        "requests": args.requests,
        "answered": len(answered),
        "failed": failed,
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(answered) / wall, 1) if wall else 0.0,
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
        "escalated": len(escalated),
        "missing_from_audit": len({a["audit_id"] for a in answered} - audited),
        "escalations_missing_from_queue": len(set(escalated) - cases.keys()),
        "claimed_twice": sum(1 for n in claims.values() if n > 1),
        "claims": len(reviewed["claims"]),
        "lost_claim_races": reviewed["lost_races"],
        "resolved": sum(c.state == "resolved" for c in cases.values()),
        "resolved_by_someone_else": sum(
            1 for cid, c in cases.items() if cid in claimed_by and c.reviewer != claimed_by[cid]
        ),
        "resolution_records": resolution_records,
        "chain_verifies": verify.returncode == 0,
        "verify_output": verify.stdout.strip().splitlines()[0] if verify.stdout else verify.stderr,
        "cpu_s": {
            "servers": round(cpu1["servers"] - cpu0["servers"], 1),
            "postgres": round(cpu1["postgres"] - cpu0["postgres"], 1),
            "load_clients_and_reviewers": round(load_cpu, 1),
        },
    }


_reaped_cpu = [0.0]


def _children_cpu() -> float:
    """CPU seconds of the children reaped since the last call (load clients, reviewers)."""
    import resource

    total = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = total.ru_utime + total.ru_stime
    used, _reaped_cpu[0] = now - _reaped_cpu[0], now
    return used


# --- the Ray hook ---------------------------------------------------------------------------------


def ray_rescoring(args: argparse.Namespace) -> dict[str, Any]:
    """Run ``benchmarks.rescore_ray`` (its own JSON); its result, or why not."""
    if args.skip_ray:
        return {"skipped": "--skip-ray"}
    out = Path(args.json_out).with_name("rescore_ray.json")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.rescore_ray", "--json-out", str(out)],
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0 or not out.is_file():
        return {"failed": f"benchmarks.rescore_ray exited {done.returncode}"}
    result: dict[str, Any] = json.loads(out.read_text())
    return result


# --- main -----------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=24, help="in flight, all clients together")
    ap.add_argument("--clients", type=int, default=2, help="load client processes")
    ap.add_argument("--reviewers", type=int, default=8)
    ap.add_argument("--skip-ray", action="store_true", help="do not run benchmarks.rescore_ray")
    ap.add_argument("--json-out", default="benchmarks/results/scale_out.json")
    ap.add_argument("--load", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--review", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.load:
        urls, first, last, conc = args.load
        result = asyncio.run(load(urls.split(","), int(first), int(last), int(conc)))
        print(json.dumps(result))
        return
    if args.review:
        url, n, stop = args.review
        print(json.dumps(review(url, int(n), Path(stop))))
        return

    import tempfile

    from guardrail.queues.pgcluster import LocalCluster

    console = Console()
    results: dict[str, Any] = {}
    with LocalCluster(tcp=True) as cluster, tempfile.TemporaryDirectory() as tmp:
        for name, replicas in (("one", 1), ("two", 2)):
            console.print(f"[bold]{replicas} replica(s)[/]: {args.requests} requests ...")
            results[name] = scenario(cluster, name, replicas, args, Path(tmp))
    speedup = results["two"]["requests_per_s"] / max(results["one"]["requests_per_s"], 1e-9)

    table = Table(
        title=f"guardrail serve replicas sharing one PostgreSQL (127.0.0.1, {os.cpu_count()} CPUs)"
    )
    rows = [
        ("answered / failed", lambda r: f"{r['answered']} / {sum(r['failed'].values())}"),
        ("requests/s", lambda r: f"{r['requests_per_s']:.1f}"),
        ("p50 / p99 ms", lambda r: f"{r['p50_ms']:.0f} / {r['p99_ms']:.0f}"),
        ("escalated / resolved", lambda r: f"{r['escalated']} / {r['resolved']}"),
        ("turns missing from audit", lambda r: str(r["missing_from_audit"])),
        ("escalations missing", lambda r: str(r["escalations_missing_from_queue"])),
        ("cases claimed twice", lambda r: str(r["claimed_twice"])),
        ("lost claim races", lambda r: str(r["lost_claim_races"])),
        ("resolution records", lambda r: str(r["resolution_records"])),
        ("chain", lambda r: r["verify_output"]),
        ("load average before", lambda r: f"{r['load_average_before']:.2f}"),
        ("CPU s: servers", lambda r: str(r["cpu_s"]["servers"])),
        ("CPU s: PostgreSQL", lambda r: str(r["cpu_s"]["postgres"])),
        ("CPU s: clients+reviewers", lambda r: str(r["cpu_s"]["load_clients_and_reviewers"])),
    ]
    table.add_column("")
    table.add_column("1 replica", justify="right")
    table.add_column("2 replicas", justify="right")
    for label, cell in rows:
        table.add_row(label, cell(results["one"]), cell(results["two"]))
    console.print(table)
    console.print(f"throughput, 2 replicas / 1: [bold]{speedup:.2f}x[/] (target >= 1.6)")

    ray = ray_rescoring(args)
    console.print(f"Ray re-scoring: {json.dumps(ray)[:300]}")
    payload = {
        "settings": {
            k: getattr(args, k) for k in ("requests", "concurrency", "clients", "reviewers")
        },
        "results": results,
        "speedup_two_over_one": round(speedup, 2),
        "ray_rescoring": ray,
    }
    console.print(f"wrote {write_results('scale_out', payload, args.json_out)}")


if __name__ == "__main__":
    main()
