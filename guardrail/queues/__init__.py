"""Escalation sinks: where escalated cases go for human review.

* :class:`ReviewQueue` — a durable review queue (claim, resolve): ``ReviewQueue(path)`` in one
  SQLite file (the default; :class:`SQLiteQueue`), ``ReviewQueue("postgresql://...")`` shared
  in PostgreSQL (the ``postgres`` extra);
* :class:`WebhookSink` — signed HTTP POST, at least once, through a durable outbox;
* :class:`JSONLSink` — one fsynced JSON line per case, for pipelines that tail a file.
"""

from guardrail.queues.base import EscalationSink
from guardrail.queues.jsonl import JSONLSink
from guardrail.queues.outbox import DatabaseOutbox, OutboxEntry, SQLiteOutbox
from guardrail.queues.review_queue import (
    CaseNotFoundError,
    CaseResolution,
    CaseStateError,
    ReviewError,
    ReviewQueue,
    SQLiteQueue,
    StoredCase,
)
from guardrail.queues.webhook import WebhookDeliveryError, WebhookSink, verify_signature

__all__ = [
    "CaseNotFoundError",
    "CaseResolution",
    "CaseStateError",
    "DatabaseOutbox",
    "EscalationSink",
    "JSONLSink",
    "OutboxEntry",
    "ReviewError",
    "ReviewQueue",
    "SQLiteOutbox",
    "SQLiteQueue",
    "StoredCase",
    "WebhookDeliveryError",
    "WebhookSink",
    "verify_signature",
]
