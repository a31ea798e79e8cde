"""Faults: 1,000 turns through ``Guard`` with 20 % of judge calls failing and a ``kill -9``.

Half the questions are on sensitive topics. The judge is the offline judge with faults in
front of it: each call fails with probability 0.2, as a timeout, HTTP 429, HTTP 500, malformed
output or an empty reply (the retry policy gets two tries, 50 ms timeout). The turns run in a
child process (this file with ``--run``) that writes each answered turn to a file; the parent
kills it with SIGKILL when half the turns are answered, runs the crash recovery that
``guardrail serve`` runs at start-up, and starts a second child for the rest. Then it counts:

* answered turns missing from the audit log (target 0);
* answered escalations missing from the review queue (target 0);
* sensitive-topic turns whose scoring failed but whose decision did not fail closed (target 0);
* whether the audit chain verifies.

    python benchmarks/fault_injection.py [--turns 1000] [--fault-rate 0.2] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
TURNS = [
    (
        "Can pregnant women take ibuprofen for back pain?",
        "Ibuprofen is safe in the first two trimesters of pregnancy.",
        ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
    ),
    (
        "When is the city library open on Saturdays?",
        "The city library is open on Saturdays from 10:00 to 14:00.",
        ["The city library is open on Saturdays from 10:00 to 14:00."],
    ),
]
FAULTS = ("timeout", "429", "500", "malformed", "empty")


def policy_text(path: Path) -> None:
    """The default policy with a short timeout and two tries per call."""
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    text = text.replace("timeout_s: 60", "timeout_s: 0.05")
    text = text.replace("max_attempts: 4", "max_attempts: 2\n  backoff_base_s: 0.001")
    path.write_text(text, encoding="utf-8")


# --- the child: run turns ------------------------------------------------------------------------


def run_turns(first: int, last: int, rate: float, workdir: Path) -> None:
    from guardrail.exceptions import JudgeRateLimited, JudgeServerError
    from guardrail.guard import Guard
    from guardrail.judges import JudgeRequest, JudgeResponse
    from guardrail.judges.local import LocalJudge

    rng = random.Random(first)
    local = LocalJudge()

    class FaultyJudge:
        name = "faulty-local"

        async def complete(self, request: JudgeRequest) -> JudgeResponse:
            if rng.random() >= rate:
                return await local.complete(request)
            fault = rng.choice(FAULTS)
            if fault == "timeout":
                await asyncio.sleep(0.2)  # past the 50 ms timeout
            if fault == "429":
                raise JudgeRateLimited("scripted 429", status_code=429)
            if fault == "500":
                raise JudgeServerError("scripted 500", status_code=500)
            return JudgeResponse(text="{not json ¯\\_(ツ)_/¯" if fault == "malformed" else "")

    guard = Guard.from_yaml(
        workdir / "policy.yaml",
        judge=FaultyJudge(),
        audit_log=workdir / "audit.jsonl",
        review_db=workdir / "review.sqlite3",
        fallback_log=workdir / "fallback.jsonl",
    )
    fd = os.open(workdir / "answered.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    for i in range(first, last):
        question, answer, contexts = TURNS[i % 2]
        result = guard.check(question, answer, contexts)
        rule = guard.policy.topic(result.decision.topic)
        line = {
            "i": i,
            "audit_id": result.audit_id,
            "action": result.decision.action,
            "actions": list(result.decision.actions),
            "sensitive": rule.sensitive,
            "error": result.decision.error,
        }
        os.write(fd, (json.dumps(line) + "\n").encode())
    os.close(fd)


# --- the parent: kill, recover, count -------------------------------------------------------------


def answered(workdir: Path) -> list[dict[str, Any]]:
    path = workdir / "answered.jsonl"
    if not path.exists():
        return []
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(raw))
        except ValueError:  # a line torn by the kill: that turn was not answered
            continue
    return rows


def child(first: int, last: int, rate: float, workdir: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, __file__, "--run", str(first), str(last), "--fault-rate", str(rate)]
    return subprocess.Popen([*argv, "--workdir", str(workdir)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--json-out", default="benchmarks/results/fault_injection.json")
    ap.add_argument("--run", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        run_turns(args.run[0], args.run[1], args.fault_rate, args.workdir)
        return

    from guardrail.audit import AuditLog, verify_log
    from guardrail.audit.recover import recorded_turns, recover_turns
    from guardrail.queues import SQLiteQueue

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        policy_text(workdir / "policy.yaml")
        first = child(0, args.turns, args.fault_rate, workdir)
        while len(answered(workdir)) < args.turns // 2 and first.poll() is None:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        before_kill = answered(workdir)
        with AuditLog(workdir / "audit.jsonl") as log:
            recovered = recover_turns(log, SQLiteQueue(workdir / "review.sqlite3"))
        resume = max((r["i"] for r in before_kill), default=-1) + 1
        second = child(resume, args.turns, args.fault_rate, workdir)
        if second.wait() != 0:
            raise SystemExit("the second run failed")
        rows = answered(workdir)
        audited = recorded_turns(workdir / "audit.jsonl")
        cases = {c.case_id for c in SQLiteQueue(workdir / "review.sqlite3").list()}
        chain = verify_log(workdir / "audit.jsonl")
        failed = [r for r in rows if r["error"]]
        escalated = [r for r in rows if "escalate" in r["actions"]]
        results = {
            "turns": args.turns,
            "answered": len(rows),
            "killed_after": len(before_kill),
            "unanswered": args.turns - len(rows),
            "recovered_turn_records": len(recovered),
            "sensitive_turns": sum(r["sensitive"] for r in rows),
            "turns_with_failed_scoring": len(failed),
            "decisions": {
                a: sum(r["action"] == a for r in rows) for a in sorted({r["action"] for r in rows})
            },
            "answered_missing_from_audit": sum(r["audit_id"] not in audited for r in rows),
            "escalations_missing_from_queue": sum(r["audit_id"] not in cases for r in escalated),
            "sensitive_failed_not_closed": sum(
                bool(r["sensitive"] and r["error"] and r["action"] not in ("abstain", "escalate"))
                for r in rows
            ),
            "audit_records": chain.records,
            "audit_chain_ok": chain.ok,
            "wall_s": round(time.perf_counter() - started, 1),
        }
    table = Table(title=f"Fault injection: {args.turns} turns, {args.fault_rate:.0%} judge faults")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in results.items():
        table.add_row(key.replace("_", " "), json.dumps(value))
    console = Console()
    console.print(table)
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "fault_injection", "results": results}, indent=2))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
