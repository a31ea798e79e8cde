"""The guard's own cost per answer: everything except waiting for judges.

The judge is a scripted double that answers instantly (its handler's own time is measured and
subtracted), so what remains is guardrail's code: topic classification, MetaRAG's prompt
rendering / parsing / aggregation / span alignment, the policy decision, the actions (cite,
escalate to SQLite) and the audit write (with and without fsync).

The OpenTelemetry rows (no audit log) compare telemetry off with the API's no-op providers (no
SDK configured) and with the SDK recording every span and metric to memory (in-memory span
exporter behind a synchronous processor, in-memory metric reader): the cost of a traced turn
with the default settings (the scripted judge answers instantly, so its 25 calls are counted on
their stage spans rather than given a span each, as an in-process judge's calls are), with a
batching processor, with a span for every judge call (``judge_span_min_ms=0``: about 30 spans)
and with no judge-call spans at all. The target is at most 1 ms p50 above "off" with the
default settings. "telemetry code"
is the time spent inside guardrail's telemetry hooks per turn (starting the turn span; building
the child spans and recording the metrics at the end), which a busy machine blurs less than
the difference of two whole-turn medians.

    python -m benchmarks.guard_overhead [--answers 200] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.policy import load_policy
from guardrail.queues import SQLiteQueue
from guardrail.telemetry import Telemetry

ROOT = repo_root()
#: The OpenTelemetry target: p50 with the SDK recording, at most this much above "off" (ms).
OTEL_TARGET_MS = 1.0
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


def in_memory_sdk(batch: bool = False) -> tuple[Telemetry, Callable[[], None]]:
    """Telemetry recording to the SDK's in-memory exporter and reader; and a reset.

    ``batch``: spans go through the batching processor production setups use (exported on
    its own thread) instead of the synchronous one."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    tracer_provider.add_span_processor(processor)
    reader = InMemoryMetricReader()
    telemetry = Telemetry(
        tracer_provider=tracer_provider, meter_provider=MeterProvider(metric_readers=[reader])
    )

    def clear() -> None:
        if batch:
            tracer_provider.force_flush()
        exporter.clear()

    return telemetry, clear


def run(
    answers: int,
    fsync: bool | None,
    tmp: Path,
    telemetry: Telemetry | None = None,
    between: Callable[[], Any] = lambda: None,
) -> dict[str, float]:
    judge = TimedJudge(handler)
    policy = load_policy(ROOT / "policies" / "default.yaml")
    audit = AuditLog(tmp / f"audit-{fsync}.jsonl", fsync=bool(fsync)) if fsync is not None else None
    queue = SQLiteQueue(tmp / f"review-{fsync}-{id(telemetry)}.sqlite3")
    guard = Guard(
        policy,
        judge=judge,
        escalator=Escalator(default=queue),
        audit=audit,
        telemetry=telemetry or Telemetry.off(),
    )
    guard.check(QUESTIONS[0][0], ANSWER, CONTEXT)  # warm-up: loop thread, lazy imports
    judge.requests.clear()
    between()
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
        between()  # e.g. drop the exported spans, so memory stays flat
    guard.close()
    per_answer.sort()
    return {
        "median_ms": statistics.median(per_answer) * 1000,
        "p95_ms": per_answer[int(0.95 * (len(per_answer) - 1))] * 1000,
        "mean_ms": statistics.fmean(per_answer) * 1000,
        "classify_median_ms": statistics.median(classify) * 1000,
        "judge_calls_per_answer": judge.calls / answers,
    }


class HookTimer:
    """Time spent in the telemetry's own code per turn: starting the turn span and, at the end,
    building its children and recording the metrics (what the turn pays on top of the API)."""

    def __init__(self) -> None:
        from guardrail.telemetry import otel

        self.spent: dict[int, float] = {}
        start, end = otel.Backend.start, otel.Recorder.end
        timer = self

        def timed_start(backend: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            recorder = start(backend, **kwargs)
            timer.add(backend.telemetry, time.perf_counter() - t0)
            return recorder

        def timed_end(recorder: Any) -> None:
            t0 = time.perf_counter()
            end(recorder)
            timer.add(recorder.backend.telemetry, time.perf_counter() - t0)

        otel.Backend.start = timed_start  # type: ignore[method-assign,assignment]
        otel.Recorder.end = timed_end  # type: ignore[method-assign,assignment]

    def add(self, telemetry: Telemetry, seconds: float) -> None:
        self.spent[id(telemetry)] = self.spent.get(id(telemetry), 0.0) + seconds

    def take(self, telemetry: Telemetry) -> float:
        return self.spent.pop(id(telemetry), 0.0)


def paired(answers: int, tmp: Path) -> dict[str, dict[str, float]]:
    """Telemetry off, API only, SDK in memory (synchronous and batching span processor, and
    without judge-call spans): five guards (no audit log), interleaved answer by answer, so a
    busy moment of a shared machine hits them alike. The batching guard's spans are dropped at
    the end (its exporter thread keeps up with 30 spans a turn)."""
    guards: dict[str, tuple[Guard, TimedJudge, Callable[[], Any]]] = {}
    simple, clear_simple = in_memory_sdk()
    batched, clear_batched = in_memory_sdk(batch=True)
    every, clear_every = in_memory_sdk()
    every.judge_span_min_ms = 0.0
    lean, clear_lean = in_memory_sdk()
    lean.judge_spans = False
    for label, tel, between in (
        ("OpenTelemetry off", Telemetry.off(), lambda: None),
        ("OpenTelemetry API, no SDK", Telemetry(), lambda: None),
        ("OpenTelemetry SDK in memory", simple, clear_simple),
        ("OpenTelemetry SDK in memory, batching", batched, lambda: None),
        ("OpenTelemetry SDK in memory, a span per judge call", every, clear_every),
        ("OpenTelemetry SDK in memory, no judge-call spans", lean, clear_lean),
    ):
        judge = TimedJudge(handler)
        policy = load_policy(ROOT / "policies" / "default.yaml")
        queue = SQLiteQueue(tmp / f"review-{len(guards)}.sqlite3")
        guard = Guard(policy, judge=judge, escalator=Escalator(default=queue), telemetry=tel)
        guard.check(QUESTIONS[0][0], ANSWER, CONTEXT)  # warm-up: loop thread, lazy imports
        judge.requests.clear()
        guards[label] = (guard, judge, between)
    times: dict[str, list[float]] = {label: [] for label in guards}
    hooks: dict[str, list[float]] = {label: [] for label in guards}
    timer = HookTimer()
    for i in range(answers):
        question = QUESTIONS[i % len(QUESTIONS)][0]
        order = list(guards) if i % 2 == 0 else list(reversed(guards))
        for label in order:
            guard, judge, between = guards[label]
            before = judge.spent
            t0 = time.perf_counter()
            guard.check(question, ANSWER, CONTEXT)
            times[label].append(time.perf_counter() - t0 - (judge.spent - before))
            hooks[label].append(timer.take(guard.telemetry))
            between()
    clear_batched()
    out = {}
    base = times["OpenTelemetry off"]
    for label, (guard, judge, _) in guards.items():
        guard.close()
        ordered = sorted(times[label])
        out[label] = {
            "median_ms": statistics.median(ordered) * 1000,
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
            "mean_ms": statistics.fmean(ordered) * 1000,
            "paired_median_extra_ms": statistics.median(
                (t - b) * 1000 for t, b in zip(times[label], base, strict=True)
            ),
            "judge_calls_per_answer": judge.calls / answers,
            "telemetry_code_median_ms": statistics.median(hooks[label]) * 1000,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=200)
    ap.add_argument(
        "--json-out", default=None, help="default benchmarks/results/guard_overhead.json"
    )
    args = ap.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, fsync in (
            ("no audit log", None),
            ("audit, fsync off", False),
            ("audit, fsync on", True),
        ):
            results[label] = run(args.answers, fsync, Path(tmp))
        try:
            telemetry_rows = paired(args.answers, Path(tmp))
        except ImportError:
            print("OpenTelemetry SDK not installed (the otel extra): its rows are skipped")
            telemetry_rows = {}
    table = Table(title=f"Guard overhead per answer, judge time excluded ({args.answers} answers)")
    for col in ("configuration", "median ms", "p95 ms", "mean ms", "classify ms", "judge calls"):
        table.add_column(col, justify="right")
    for label, r in results.items():
        table.add_row(
            label, f"{r['median_ms']:.2f}", f"{r['p95_ms']:.2f}", f"{r['mean_ms']:.2f}",
            f"{r['classify_median_ms']:.2f}", f"{r['judge_calls_per_answer']:.0f}",
        )  # fmt: skip
    console = Console()
    console.print(table)
    payload: dict[str, Any] = {"answers": args.answers, "results": results}
    if telemetry_rows:
        otel = Table(title="OpenTelemetry, no audit log (interleaved answer by answer)")
        cols = ("configuration", "median ms", "p95 ms", "mean ms", "paired extra p50 ms",
                "telemetry code p50 ms")  # fmt: skip
        for col in cols:
            otel.add_column(col, justify="right")
        for label, r in telemetry_rows.items():
            otel.add_row(
                label, f"{r['median_ms']:.2f}", f"{r['p95_ms']:.2f}", f"{r['mean_ms']:.2f}",
                f"{r['paired_median_extra_ms']:+.2f}", f"{r['telemetry_code_median_ms']:.3f}",
            )  # fmt: skip
        console.print(otel)
        on = telemetry_rows["OpenTelemetry SDK in memory"]
        unpaired = on["median_ms"] - telemetry_rows["OpenTelemetry off"]["median_ms"]
        # Judged on the paired difference and the hooks' own time, the larger of the two: the
        # difference of two medians swings by several ms either way on a busy machine.
        extra = max(on["paired_median_extra_ms"], on["telemetry_code_median_ms"])
        met = extra <= OTEL_TARGET_MS
        payload["telemetry"] = telemetry_rows
        payload["otel_target"] = {
            "extra_p50_ms": extra,
            "unpaired_p50_difference_ms": unpaired,
            "limit_ms": OTEL_TARGET_MS,
            "met": met,
        }
        console.print(
            f"OpenTelemetry SDK on: paired p50 {on['paired_median_extra_ms']:+.2f} ms over off, "
            f"the telemetry's own code {on['telemetry_code_median_ms']:.2f} ms (difference of "
            f"the medians {unpaired:+.2f} ms); limit {OTEL_TARGET_MS:.0f} ms: "
            f"{'met' if met else 'NOT met'}"
        )
    print(f"wrote {write_results('guard_overhead', payload, args.json_out)}")


if __name__ == "__main__":
    main()
