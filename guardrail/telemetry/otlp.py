"""Export to an OpenTelemetry collector over OTLP/HTTP (the ``otel`` extra).

:func:`configure_otlp` installs global SDK providers — a batching span processor and a
periodic metric reader, both with OTLP/HTTP exporters — so every guard in the process (and
``guardrail serve``) exports its spans and metrics. Endpoint, headers and timeouts follow the
standard ``OTEL_EXPORTER_OTLP_*`` environment variables unless given here; the service name
defaults to ``OTEL_SERVICE_NAME`` or ``guardrail``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from guardrail.exceptions import ConfigError

__all__ = ["OTLPProviders", "configure_otlp", "shutdown_with"]


@dataclass(frozen=True)
class OTLPProviders:
    """The providers installed; ``shutdown()`` flushes and stops both exporters."""

    tracer_provider: Any
    meter_provider: Any

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def configure_otlp(
    *,
    endpoint: str | None = None,
    service_name: str | None = None,
    metric_interval_s: float = 60.0,
    set_global: bool = True,
) -> OTLPProviders:
    """Build SDK providers exporting to ``endpoint`` (e.g. ``http://127.0.0.1:4318``; default:
    the ``OTEL_EXPORTER_OTLP_ENDPOINT`` variable, else the exporter's own default) and, with
    ``set_global``, install them as the process's global providers."""
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise ConfigError(
            f"OTLP export needs the otel extra ({exc.name} is missing): "
            "pip install 'guardrail-rag[otel]'"
        ) from exc
    if metric_interval_s <= 0:
        raise ConfigError(f"metric_interval_s must be > 0, got {metric_interval_s}")
    name = service_name or os.environ.get("OTEL_SERVICE_NAME") or "guardrail"
    resource = Resource.create({SERVICE_NAME: name})
    base = endpoint.rstrip("/") if endpoint else None
    spans = OTLPSpanExporter(endpoint=f"{base}/v1/traces") if base else OTLPSpanExporter()
    points = OTLPMetricExporter(endpoint=f"{base}/v1/metrics") if base else OTLPMetricExporter()
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(spans))
    reader = PeriodicExportingMetricReader(points, export_interval_millis=metric_interval_s * 1000)
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    if set_global:
        trace.set_tracer_provider(tracer_provider)
        metrics.set_meter_provider(meter_provider)
    return OTLPProviders(tracer_provider, meter_provider)


def shutdown_with(app: Any, providers: OTLPProviders) -> None:
    """Flush and stop ``providers`` when the ASGI ``app`` (FastAPI/Starlette) shuts down.

    A server stopped by a signal may not run ``atexit`` handlers (uvicorn re-raises the
    signal once it has shut down), so the SDK's own exit hook cannot be relied on there."""
    import asyncio
    import contextlib
    from collections.abc import AsyncIterator

    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        try:
            async with inner(a) as state:
                yield state
        finally:
            await asyncio.to_thread(providers.shutdown)

    app.router.lifespan_context = lifespan
