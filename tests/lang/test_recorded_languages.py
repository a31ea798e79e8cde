"""A turn's languages are recorded in its decision and its audit record."""

from __future__ import annotations

from guardrail.audit.record import AuditRecord
from guardrail.lang import detect_turn
from guardrail.models import Decision, GuardResult
from guardrail.policy import PolicyEngine, parse_policy
from tests.policy.factories import BASE_YAML, label, report

QUESTION = "Wann dürfen Asylbewerber eine Arbeitserlaubnis beantragen?"
ANSWER = "Asylbewerber können nach zwei Monaten eine Arbeitserlaubnis beantragen."
CONTEXT = "Asylbewerber dürfen nach sechs Monaten eine Arbeitserlaubnis beantragen."


def _result(decision: Decision) -> GuardResult:
    return GuardResult(
        audit_id="turn-1",
        policy="test",
        question=QUESTION,
        answer="",
        original_answer=ANSWER,
        contexts=[CONTEXT],
        decision=decision,
    )


def test_audit_record_keeps_the_languages_through_redaction() -> None:
    """The record of a German turn names its languages; dropping the texts keeps them (they
    are codes, not user text), and the record round-trips through JSON."""
    engine = PolicyEngine(parse_policy(BASE_YAML))
    languages = detect_turn(QUESTION, ANSWER, [CONTEXT])
    decision = engine.decide(report(0.0, 0.3), [label("asylum")], languages=languages)
    record = AuditRecord.from_result(_result(decision), policy_hash="h", redaction="drop")
    assert record.question is None
    assert record.languages is not None
    assert (record.languages.question, record.languages.answer) == ("de", "de")
    assert record.languages.contexts == ["de"]
    assert record.languages.verifiable is True
    again = AuditRecord.model_validate(record.to_json_dict())
    assert again.languages == record.languages == decision.languages


def test_turn_decided_without_languages_records_none() -> None:
    """A decision made without detected languages records null, not a guessed language."""
    engine = PolicyEngine(parse_policy(BASE_YAML))
    decision = engine.decide(report(0.0), [label("general")])
    assert decision.languages is None
    assert AuditRecord.from_result(_result(decision), policy_hash="h").languages is None
