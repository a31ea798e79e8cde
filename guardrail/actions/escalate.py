"""Escalate: hand a case to its named queue's sink, with a fallback so none is ever lost.

Sinks are looked up by queue name, then the default sink. If the chosen sink raises, the case
goes to the fallback sink (e.g. a local JSON Lines file); the outcome records every failure,
and the guard writes it into the audit record, which also carries the case.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from guardrail.models import EscalationCase
from guardrail.queues.base import EscalationSink


class EscalationOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    queue: str
    delivered_to: str | None
    errors: list[str]


class Escalator:
    """Routes escalated cases to sinks by queue name."""

    def __init__(
        self,
        sinks: Mapping[str, EscalationSink] | None = None,
        *,
        default: EscalationSink | None = None,
        fallback: EscalationSink | None = None,
    ) -> None:
        self.sinks = dict(sinks or {})
        self.default = default
        self.fallback = fallback

    def sink_for(self, queue: str) -> EscalationSink | None:
        return self.sinks.get(queue, self.default)

    async def send(self, case: EscalationCase) -> EscalationOutcome:
        errors: list[str] = []
        for sink in (self.sink_for(case.queue), self.fallback):
            if sink is None:
                continue
            try:
                await sink.send(case)
            except Exception as exc:  # any sink failure must fall through to the next
                errors.append(f"{sink.name}: {type(exc).__name__}: {exc}")
                continue
            return EscalationOutcome(queue=case.queue, delivered_to=sink.name, errors=errors)
        if not errors:
            errors.append(f"no sink configured for queue {case.queue!r}")
        return EscalationOutcome(queue=case.queue, delivered_to=None, errors=errors)
