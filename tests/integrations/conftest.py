"""A guard for the framework adapters: an exact-match verifier and a review queue on disk.

The scripted judge stands in for an LLM verifier: a claim is supported when its sentence
appears in the retrieved passages, so an answer copied from the documents passes and anything
else is flagged — the adapters' job is only to hand the guard the right passages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from guardrail.actions.escalate import Escalator
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.policy import parse_policy
from guardrail.queues import SQLiteQueue
from guardrail.telemetry import Telemetry
from guardrail.testing import no_network

POLICY = """
name: clinic
scorer: {judge: local, max_attempts: 1}
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
      escalate: {queue: clinical-review, message: "A clinician will check this answer."}
"""
DOCUMENTS = [
    "Ibuprofen is contraindicated in the third trimester of pregnancy.",
    "Paracetamol is the first choice for pain relief during pregnancy.",
    "The office opens at eight on weekdays.",
]
QUESTION = "Can pregnant women take ibuprofen for back pain?"
SUPPORTED = "Paracetamol is the first choice for pain relief during pregnancy."
UNSUPPORTED = "Ibuprofen is safe throughout pregnancy."

_SYNONYM, _ANTONYM = "In other words, ", "It is not true that "


def _sentence(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


def exact_match(req: JudgeRequest) -> str:
    if req.task == "decompose":
        return json.dumps([s.strip() + "." for s in req.inputs["text"].split(".") if s.strip()])
    if req.task in ("synonym", "antonym"):
        lead = _SYNONYM if req.task == "synonym" else _ANTONYM
        return "\n".join(lead + req.inputs["factoid"] for _ in range(int(req.inputs["count"])))
    statement = req.inputs["statement"]
    negated = statement.startswith(_ANTONYM)
    claim = _sentence(statement.removeprefix(_ANTONYM).removeprefix(_SYNONYM))
    found = claim in _sentence(req.inputs["context"])
    return "YES. Stated." if found != negated else "NO. Not in the passages."


@pytest.fixture(autouse=True)
def _offline() -> Iterator[None]:
    """The frameworks' fakes must not reach the network (tokenizer downloads, telemetry)."""
    with no_network():
        yield


@pytest.fixture
def queue(tmp_path: Path) -> SQLiteQueue:
    return SQLiteQueue(tmp_path / "review.sqlite3")


@pytest.fixture
def guard(queue: SQLiteQueue) -> Iterator[Guard]:
    g = Guard(
        parse_policy(POLICY),
        judge=ScriptedJudge(exact_match),
        escalator=Escalator(default=queue),
        telemetry=Telemetry.off(),
    )
    yield g
    g.close()
