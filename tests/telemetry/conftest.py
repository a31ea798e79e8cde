"""A guard wired to the OpenTelemetry SDK's in-memory span exporter and metric reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.policy import parse_policy
from guardrail.queues import SQLiteQueue
from guardrail.telemetry import Telemetry

POLICY = """
name: traced
scorer: {judge: local, max_attempts: 1, backoff_base_s: 0.0}
classifier: {confidence_floor: 0.5, default_topic: general}
topics:
  - name: general
    threshold: 0.5
    examples: ["How do I reset my password?", "When does the office open?"]
  - name: pregnancy
    sensitivity: sensitive
    threshold: 0.3
    keywords: [pregnant, pregnancy]
    on_flag:
      cite: true
      escalate: {queue: clinical-review, message: "A clinician will check this."}
"""
#: The same policy, with one regeneration before escalating.
POLICY_REGEN = POLICY.replace(
    "      cite: true\n",
    "      cite: true\n      regenerate: {max_attempts: 1, instruction: Only the sources.}\n",
)
QUESTION = "Can pregnant women take ibuprofen for back pain?"
ANSWER = "Ibuprofen is safe throughout pregnancy. Paracetamol is the first choice."
CONTEXTS = [
    "Ibuprofen is contraindicated in the third trimester of pregnancy.",
    "Paracetamol is the first choice for pain relief during pregnancy.",
]


def handler(req: JudgeRequest) -> str:
    """Splits on full stops; the claim that ibuprofen is safe is unsupported, the rest is."""
    if req.task == "decompose":
        return json.dumps([s.strip() + "." for s in req.inputs["text"].split(".") if s.strip()])
    if req.task in ("synonym", "antonym"):
        lead = "In other words" if req.task == "synonym" else "It is not true that"
        count = req.inputs["count"]
        return "\n".join(f"{lead} ({i}), {req.inputs['factoid']}" for i in range(count))
    statement = req.inputs["statement"]
    supported = "safe" not in statement
    if statement.startswith("antonym"):  # an antonym of a supported claim contradicts it
        supported = not supported
    return "YES. Stated." if supported else "NO. Not supported."


class Otel:
    """The SDK side of a test: spans and metrics as exported."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def telemetry(self, **kwargs: Any) -> Telemetry:
        return Telemetry(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs
        )

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        found = list(self.exporter.get_finished_spans())
        if name is None:
            return found
        return [s for s in found if s.name == name or s.name.startswith(name + ".")]

    def points(self, metric: str) -> list[tuple[dict[str, object], object]]:
        """(attributes, point) for every data point of ``metric``."""
        data = self.reader.get_metrics_data()
        out = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        out.extend((dict(p.attributes or {}), p) for p in m.data.data_points)
        return out


@pytest.fixture
def otel() -> Iterator[Otel]:
    o = Otel()
    yield o
    o.tracer_provider.shutdown()
    o.meter_provider.shutdown()


@pytest.fixture
def queue(tmp_path: Path) -> SQLiteQueue:
    return SQLiteQueue(tmp_path / "review.sqlite3")


def make_guard(
    tmp_path: Path, queue: SQLiteQueue, telemetry: Telemetry, policy: str = POLICY, **kwargs: object
) -> Guard:
    judge = kwargs.pop("judge", None) or ScriptedJudge(handler)
    return Guard(
        parse_policy(policy),
        judge=judge,  # type: ignore[arg-type]
        escalator=Escalator(default=queue),
        audit=AuditLog(tmp_path / "audit.jsonl"),
        telemetry=telemetry,
        **kwargs,  # type: ignore[arg-type]
    )
