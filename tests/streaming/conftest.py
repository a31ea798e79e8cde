"""A guard on the offline judge with a hold, a release and a buffer topic; audit and review
queue in the test's directory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from guardrail.actions.escalate import Escalator
from guardrail.audit.log import AuditLog
from guardrail.guard import Guard
from guardrail.policy import parse_policy
from guardrail.queues import SQLiteQueue
from guardrail.queues.jsonl import JSONLSink

POLICY_YAML = """
name: streaming-test
scorer: {judge: local}
classifier: {confidence_floor: 0.5, default_topic: general}
topics:
  - name: general
    threshold: 0.5
    examples:
      - How do I reset my password?
      - When does the office open?
  - name: pregnancy
    sensitivity: sensitive
    threshold: 0.3
    keywords: [pregnant, pregnancy]
    on_flag:
      cite: true
      escalate: {queue: clinical-review, message: "A clinician will check this."}
  - name: tax
    threshold: 0.5
    stream: buffer
    keywords: [tax]
    on_flag:
      abstain: {message: "Please ask a tax adviser."}
"""

PREGNANCY_Q = "I am pregnant: can I take ibuprofen for back pain?"
PREGNANCY_CTX = [
    "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy. "
    "Paracetamol is generally considered the first choice for pain relief during pregnancy."
]
SAFE = "Paracetamol is generally considered the first choice for pain relief during pregnancy. "
UNSAFE = "Ibuprofen is completely safe in every trimester of pregnancy. "
AFTER = "You can take as much of it as you like."

GENERAL_Q = "When was the Eiffel Tower completed?"
GENERAL_CTX = ["The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall."]


def words(text: str) -> list[str]:
    """``text`` cut after each space, as a model streams it."""
    parts = text.split(" ")
    return [p + " " for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


@pytest.fixture
def queue(tmp_path: Path) -> SQLiteQueue:
    return SQLiteQueue(tmp_path / "review.sqlite3")


@pytest.fixture
def guard(audit_path: Path, queue: SQLiteQueue, tmp_path: Path) -> Iterator[Guard]:
    escalator = Escalator(default=queue, fallback=JSONLSink(tmp_path / "fallback.jsonl"))
    with Guard(parse_policy(POLICY_YAML), escalator=escalator, audit=AuditLog(audit_path)) as built:
        yield built
