"""The AuditRecord schema: what a record holds, what it refuses, and how redaction works."""

from __future__ import annotations

import json

import pytest
from audit_factories import ANSWER, FINAL, QUESTION
from pydantic import ValidationError

from guardrail.audit import AuditRecord, text_hash
from guardrail.models import GuardResult


def test_unknown_fields_are_rejected():
    """A field the schema does not declare (e.g. a protected attribute) cannot be logged."""
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        AuditRecord(kind="turn", gender="female")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        AuditRecord.model_validate({"kind": "turn", "user": {"age": 41}})


def test_unknown_nested_fields_are_rejected():
    """Nested parts (factoids, resolution) are closed schemas too."""
    with pytest.raises(ValidationError):
        AuditRecord.model_validate(
            {"kind": "turn", "factoids": [{"index": 0, "text": "x", "score": 0.1, "race": "x"}]}
        )
    with pytest.raises(ValidationError):
        AuditRecord.model_validate(
            {
                "kind": "resolution",
                "resolution": {
                    "case_id": "c",
                    "reviewer": "r",
                    "outcome": "approved",
                    "ethnicity": "x",
                },
            }
        )


def test_from_result_maps_the_turn(result: GuardResult):
    """from_result copies decision, scores, spans, calls and texts from the GuardResult."""
    rec = AuditRecord.from_result(result, policy_hash="abc")
    assert rec.kind == "turn" and rec.audit_id == "turn-0001"
    assert rec.policy == "strict-medical" and rec.policy_hash == "abc"
    assert rec.score == 0.92 and rec.threshold == 0.5
    assert rec.decision == result.decision and rec.actions == ["highlight", "abstain"]
    assert [(f.index, f.score, f.flagged) for f in rec.factoids] == [
        (0, 0.92, True),
        (1, 0.4, False),
    ]
    assert rec.factoids[0].spans == [(5, 46)] and rec.flagged_spans == [(5, 46)]
    assert [c.stage for c in rec.judge_calls] == ["decompose", "verify", "verify"]
    assert rec.usage is not None and rec.usage.parse_failures == 1
    assert rec.topics[0].label == "medical" and rec.attempts == 2
    assert (rec.question, rec.answer, rec.final_answer) == (QUESTION, ANSWER, FINAL)
    assert rec.seq is None and rec.hash is None and rec.prev_hash is None


def test_from_result_error_defaults_to_the_decision_error(result: GuardResult):
    """An explicit error wins; otherwise the decision's error is recorded."""
    failed = result.model_copy(
        update={"decision": result.decision.model_copy(update={"error": "judge down"})}
    )
    assert AuditRecord.from_result(failed, policy_hash="h").error == "judge down"
    assert AuditRecord.from_result(failed, policy_hash="h", error="boom").error == "boom"


def test_from_result_without_a_report(result: GuardResult):
    """A turn whose scoring failed (no report) still gives a valid record with null score."""
    bare = result.model_copy(
        update={"report": None, "decision": result.decision.model_copy(update={"score": None})}
    )
    rec = AuditRecord.from_result(bare, policy_hash="h")
    assert rec.score is None and rec.factoids == [] and rec.judge_calls == [] and rec.usage is None


def test_hash_redaction_replaces_every_text_with_its_sha256(result: GuardResult):
    """'hash' stores sha256 hex of question, answers and factoid texts, and nothing raw."""
    rec = AuditRecord.from_result(result, policy_hash="h", redaction="hash")
    assert rec.text_redaction == "hash"
    assert rec.question == text_hash(QUESTION)
    assert rec.answer == text_hash(ANSWER) and rec.final_answer == text_hash(FINAL)
    assert rec.factoids[0].text == text_hash("Ibuprofen is always safe with lisinopril.")
    dumped = json.dumps(rec.to_json_dict(), ensure_ascii=False)
    for raw in (QUESTION, ANSWER, FINAL, "Take 800 mg"):
        assert raw not in dumped


def test_drop_redaction_nulls_every_text(result: GuardResult):
    """'drop' keeps no text and no digest."""
    rec = AuditRecord.from_result(result, policy_hash="h", redaction="drop")
    assert (rec.question, rec.answer, rec.final_answer) == (None, None, None)
    assert all(f.text is None for f in rec.factoids)
    assert rec.factoids[0].score == 0.92  # the scores survive redaction


def test_redaction_only_gets_stronger(result: GuardResult):
    """A hashed record stays hashed when asked for 'none', and loses the digests on 'drop'."""
    hashed = AuditRecord.from_result(result, policy_hash="h", redaction="hash")
    assert hashed.redacted("none") is hashed
    dropped = hashed.redacted("drop")
    assert dropped.text_redaction == "drop" and dropped.question is None


def test_resolution_record_and_its_redaction():
    """resolution() builds a kind='resolution' record stored under the JSON key 'resolution'."""
    rec = AuditRecord.resolution("turn-0001", "dr.lee", "edited", "Ask your pharmacist.", "fixed")
    assert rec.kind == "resolution" and rec.review is not None
    assert rec.review.outcome == "edited" and rec.review.case_id == "turn-0001"
    body = rec.to_json_dict()
    assert body["resolution"]["final_answer"] == "Ask your pharmacist." and "review" not in body
    assert AuditRecord.model_validate(body) == rec
    hashed = AuditRecord.resolution(
        "c", "r", "edited", "secret text", "quote: secret text", redaction="hash"
    )
    assert hashed.review is not None and hashed.review.final_answer == text_hash("secret text")
    assert "secret text" not in json.dumps(hashed.to_json_dict())
    with pytest.raises(ValidationError):
        AuditRecord.resolution("c", "r", "maybe")  # type: ignore[arg-type]


def test_event_record():
    """event() records a named operational event with no text fields."""
    rec = AuditRecord.event("policy_loaded", policy="strict", policy_hash="ff")
    assert rec.kind == "event" and rec.event_name == "policy_loaded" and rec.question is None


def test_time_must_be_utc_iso8601():
    """A naive or non-UTC timestamp is refused; the default is UTC with a Z suffix."""
    assert AuditRecord.event("x").time.endswith("Z")
    AuditRecord(kind="event", time="2024-05-01T12:00:00+00:00")
    for bad in ("2024-05-01T12:00:00", "2024-05-01T14:00:00+02:00", "yesterday"):
        with pytest.raises(ValidationError):
            AuditRecord(kind="event", time=bad)
