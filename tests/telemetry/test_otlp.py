"""configure_otlp: spans and metrics reach an OTLP/HTTP collector (a local stand-in)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the otel extra")

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from guardrail.exceptions import ConfigError
from guardrail.server.testing import wait_until_healthy
from guardrail.telemetry import Telemetry, configure_otlp

from .conftest import ANSWER, CONTEXTS, QUESTION, make_guard

ROOT = Path(__file__).resolve().parents[2]


class Collector(ThreadingHTTPServer):
    received: list[tuple[str, bytes]]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((self.path, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector(("127.0.0.1", 0), _Handler)
    server.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_spans_and_metrics_are_exported_over_otlp_http(tmp_path, queue, collector):
    host, port = collector.server_address[:2]
    providers = configure_otlp(
        endpoint=f"http://{host}:{port}", service_name="clinic-bot", set_global=False
    )
    telemetry = Telemetry(
        tracer_provider=providers.tracer_provider, meter_provider=providers.meter_provider
    )
    with make_guard(tmp_path, queue, telemetry) as guard:
        result = guard.check(QUESTION, ANSWER, CONTEXTS)
    providers.shutdown()  # flushes both exporters
    traces = [
        ExportTraceServiceRequest.FromString(b) for p, b in collector.received if p == "/v1/traces"
    ]
    spans = [s for t in traces for r in t.resource_spans for ss in r.scope_spans for s in ss.spans]
    names = {s.name for s in spans}
    assert {"guardrail.turn", "guardrail.score"} <= names
    [turn] = [s for s in spans if s.name == "guardrail.turn"]
    attrs = {a.key: a.value for a in turn.attributes}
    assert attrs["guardrail.audit_id"].string_value == result.audit_id
    service = {a.key: a.value.string_value for a in traces[0].resource_spans[0].resource.attributes}
    assert service["service.name"] == "clinic-bot"
    metrics = [
        ExportMetricsServiceRequest.FromString(b)
        for p, b in collector.received
        if p == "/v1/metrics"
    ]
    exported = {
        m.name
        for req in metrics
        for r in req.resource_metrics
        for s in r.scope_metrics
        for m in s.metrics
    }
    assert {"guardrail.decisions", "guardrail.turn.duration", "guardrail.judge.tokens"} <= exported


def test_a_bad_interval_is_a_clear_error():
    with pytest.raises(ConfigError, match="metric_interval_s"):
        configure_otlp(endpoint="http://127.0.0.1:9", metric_interval_s=0, set_global=False)


def test_serve_exports_the_turn_in_the_callers_trace(tmp_path, collector):
    """``guardrail serve --otlp-endpoint``: a traceparent on POST /v1/check parents the turn
    span the service exports (flushed when the server stops)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    host, cport = collector.server_address[:2]
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "guardrail", "serve", "--no-review-ui",
            "--policy", str(ROOT / "policies" / "default.yaml"), "--port", str(port),
            "--db", str(tmp_path / "review.sqlite3"), "--audit-log", str(tmp_path / "audit.jsonl"),
            "--otlp-endpoint", f"http://{host}:{cport}",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    try:
        wait_until_healthy(url, proc, timeout_s=60)
        reply = httpx.post(
            f"{url}/v1/check",
            json={"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS},
            headers={"traceparent": f"00-{trace_id}-{parent_id}-01"},
            timeout=60,
        )
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert reply.status_code == 200, out
    traces = [
        ExportTraceServiceRequest.FromString(b) for p, b in collector.received if p == "/v1/traces"
    ]
    spans = [s for t in traces for r in t.resource_spans for ss in r.scope_spans for s in ss.spans]
    [turn] = [s for s in spans if s.name == "guardrail.turn"]
    assert turn.trace_id.hex() == trace_id
    # up the span tree (through the web framework's own server spans, if it makes any) to the
    # caller's span
    parents = {s.span_id: s.parent_span_id for s in spans}
    parent = turn.parent_span_id
    while parent in parents:
        parent = parents[parent]
    assert parent.hex() == parent_id
    attrs = {a.key: a.value.string_value for a in turn.attributes}
    assert attrs["guardrail.audit_id"] == reply.json()["audit_id"]
