"""Builders shared by the audit tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from guardrail.models import (
    Decision,
    Factoid,
    GuardResult,
    JudgeCall,
    ScoreReport,
    StageTiming,
    TopicLabel,
    Usage,
)

QUESTION = "Can I take ibuprofen with my blood-pressure tablets, Zoë?"
ANSWER = "Yes, ibuprofen is always safe with lisinopril. Take 800 mg four times daily."
FINAL = "I can't answer that reliably; please ask your pharmacist."


def make_result(
    question: str = QUESTION, answer: str = ANSWER, audit_id: str = "turn-0001"
) -> GuardResult:
    """A flagged, abstained medical turn with two factoids and three judge calls."""
    calls = [
        JudgeCall(stage="decompose", judge="local", prompt_tokens=120, completion_tokens=30),
        JudgeCall(stage="verify", judge="local", prompt_tokens=300, completion_tokens=8),
        JudgeCall(
            stage="verify",
            judge="local",
            attempts=2,
            ok=True,
            parse_failure="no label; treated as NOT SURE",
        ),
    ]
    factoids = [
        Factoid(
            index=0,
            text="Ibuprofen is always safe with lisinopril.",
            spans=[(5, 46)],
            aligned=True,
            alignment=1.0,
            score=0.92,
            flagged=True,
        ),
        Factoid(
            index=1,
            text="Take 800 mg four times daily.",
            spans=[(47, 76)],
            aligned=True,
            alignment=1.0,
            score=0.4,
        ),
    ]
    report = ScoreReport(
        score=0.92,
        threshold=0.5,
        flagged=True,
        factoids=factoids,
        flagged_spans=[(5, 46)],
        usage=Usage.from_calls(calls, [StageTiming(stage="verify", seconds=0.2, calls=2)], 0.31),
        calls=calls,
    )
    decision = Decision(
        action="abstain",
        actions=["highlight", "abstain"],
        flagged=True,
        score=0.92,
        threshold=0.5,
        topic="medical",
        reason="score 0.92 >= 0.5 on a sensitive topic",
    )
    return GuardResult(
        audit_id=audit_id,
        policy="strict-medical",
        question=question,
        answer=FINAL,
        original_answer=answer,
        contexts=["Lisinopril: NSAIDs may reduce the antihypertensive effect."],
        decision=decision,
        topics=[TopicLabel(label="medical", confidence=0.97, sensitivity="sensitive")],
        report=report,
        attempts=2,
    )
