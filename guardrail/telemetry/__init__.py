"""OpenTelemetry traces and metrics of guarded turns.

Every guarded turn becomes a ``guardrail.turn`` span (topic, score, decision, actions, audit
id, judge calls, tokens) with a ``guardrail.score`` child per scoring attempt, a
``guardrail.stage.<name>`` child per scorer stage and a ``guardrail.judge.<stage>`` child per
judge call; counters and histograms mirror the service's ``/metrics``. Spans and instruments go
to the global OpenTelemetry providers (or the ones you pass to :class:`Telemetry`): with no SDK
configured, or without ``opentelemetry-api`` installed, all of it is a no-op.

The user's and the model's texts are never put on spans unless you ask for them
(``Telemetry(record_texts=True)``) *and* the guard's audit settings keep texts: with
``redaction="hash"`` the spans carry the same sha256 digests as the audit log, with ``"drop"``
nothing.

``import guardrail.telemetry`` imports no OpenTelemetry module; the API is imported on the
first traced turn, the SDK only by :func:`configure_otlp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from guardrail.telemetry.http import TraceContextMiddleware
from guardrail.telemetry.turns import Telemetry, TurnTrace, scoring_done, scoring_started

if TYPE_CHECKING:
    from guardrail.telemetry.otlp import OTLPProviders

__all__ = [
    "Telemetry",
    "TraceContextMiddleware",
    "TurnTrace",
    "configure_otlp",
    "scoring_done",
    "scoring_started",
]


def configure_otlp(**kwargs: Any) -> OTLPProviders:
    """Set global SDK providers that export over OTLP/HTTP (the ``otel`` extra); see
    :func:`guardrail.telemetry.otlp.configure_otlp`."""
    from guardrail.telemetry.otlp import configure_otlp as configure

    return configure(**kwargs)
