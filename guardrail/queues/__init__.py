"""Escalation sinks: where escalated cases go for human review."""

from guardrail.queues.base import EscalationSink

__all__ = ["EscalationSink"]
