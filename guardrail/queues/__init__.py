"""Escalation sinks: where escalated cases go for human review.

* :class:`SQLiteQueue` — the default: a durable review queue (claim, resolve) in one file;
* :class:`WebhookSink` — signed HTTP POST, at least once, through a durable outbox;
* :class:`JSONLSink` — one fsynced JSON line per case, for pipelines that tail a file.
"""

from guardrail.queues.base import EscalationSink
from guardrail.queues.jsonl import JSONLSink
from guardrail.queues.outbox import OutboxEntry, SQLiteOutbox
from guardrail.queues.sqlite import (
    CaseNotFoundError,
    CaseResolution,
    CaseStateError,
    ReviewError,
    SQLiteQueue,
    StoredCase,
)
from guardrail.queues.webhook import WebhookDeliveryError, WebhookSink, verify_signature

__all__ = [
    "CaseNotFoundError",
    "CaseResolution",
    "CaseStateError",
    "EscalationSink",
    "JSONLSink",
    "OutboxEntry",
    "ReviewError",
    "SQLiteOutbox",
    "SQLiteQueue",
    "StoredCase",
    "WebhookDeliveryError",
    "WebhookSink",
    "verify_signature",
]
