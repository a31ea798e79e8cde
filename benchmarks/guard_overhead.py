"""The guard's own cost per answer: everything except waiting for judges.

The judge is a scripted double that answers instantly (its handler's own time is measured and
subtracted), so what remains is guardrail's code: topic classification, MetaRAG's prompt
rendering / parsing / aggregation / span alignment, the policy decision, the actions (cite,
escalate to SQLite) and the audit write (with and without fsync).

    python benchmarks/guard_overhead.py [--answers 200] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.policy import load_policy
from guardrail.queues import SQLiteQueue

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    ("How do I book a meeting room?", "general"),
    ("Can pregnant women take ibuprofen for back pain?", "pregnancy"),
    ("Do LGBTQ+ refugees automatically receive protection in country X?", "asylum"),
    ("Can asylum seekers work while their application is pending?", "labour"),
]
ANSWER = (
    "Meeting rooms are booked in the calendar app. Rooms for twelve people are on the third "
    "floor. Bookings longer than four hours need approval. The booking confirms by email."
)
CONTEXT = [
    "Meeting rooms are booked in the calendar app. Rooms for up to twelve people are on the "
    "third floor.",
    "Bookings longer than four hours need a manager's approval.",
]


class TimedJudge(ScriptedJudge):
    """Instant answers; accumulates the time spent inside the handler."""

    spent: float = 0.0

    async def complete(self, request: JudgeRequest):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = await super().complete(request)
        self.spent += time.perf_counter() - t0
        return out


def handler(req: JudgeRequest) -> str:
    if req.task == "decompose":
        return json.dumps([s.strip() + "." for s in req.inputs["text"].split(".") if s.strip()])
    if req.task in ("synonym", "antonym"):
        n = req.inputs["count"]
        return "\n".join(f"{req.task} {i}: {req.inputs['factoid']}" for i in range(n))
    # flag the third factoid so the sensitive topics cite and escalate
    return "NO. Not in the passages." if "four hours" in req.inputs["statement"] else "YES. Stated."


def run(answers: int, fsync: bool | None, tmp: Path) -> dict[str, float]:
    judge = TimedJudge(handler)
    policy = load_policy(ROOT / "policies" / "default.yaml")
    audit = AuditLog(tmp / f"audit-{fsync}.jsonl", fsync=bool(fsync)) if fsync is not None else None
    queue = SQLiteQueue(tmp / f"review-{fsync}.sqlite3")
    guard = Guard(policy, judge=judge, escalator=Escalator(default=queue), audit=audit)
    per_answer: list[float] = []
    classify: list[float] = []
    for i in range(answers):
        question = QUESTIONS[i % len(QUESTIONS)][0]
        t0 = time.perf_counter()
        guard.classifier.classify(question, CONTEXT)
        classify.append(time.perf_counter() - t0)
        before = judge.spent
        t0 = time.perf_counter()
        guard.check(question, ANSWER, CONTEXT)
        per_answer.append(time.perf_counter() - t0 - (judge.spent - before))
    per_answer.sort()
    return {
        "median_ms": statistics.median(per_answer) * 1000,
        "p95_ms": per_answer[int(0.95 * (len(per_answer) - 1))] * 1000,
        "mean_ms": statistics.fmean(per_answer) * 1000,
        "classify_median_ms": statistics.median(classify) * 1000,
        "judge_calls_per_answer": judge.calls / answers,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=200)
    ap.add_argument("--json-out", default="benchmarks/results/guard_overhead.json")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, fsync in (
            ("no audit log", None),
            ("audit, fsync off", False),
            ("audit, fsync on", True),
        ):
            results[label] = run(args.answers, fsync, Path(tmp))
    table = Table(title=f"Guard overhead per answer, judge time excluded ({args.answers} answers)")
    for col in ("configuration", "median ms", "p95 ms", "mean ms", "classify ms", "judge calls"):
        table.add_column(col, justify="right")
    for label, r in results.items():
        table.add_row(
            label, f"{r['median_ms']:.1f}", f"{r['p95_ms']:.1f}", f"{r['mean_ms']:.1f}",
            f"{r['classify_median_ms']:.2f}", f"{r['judge_calls_per_answer']:.0f}",
        )  # fmt: skip
    Console().print(table)
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": "guard_overhead", "answers": args.answers, "results": results,
               "python": platform.python_version(), "machine": platform.machine()}  # fmt: skip
    out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
