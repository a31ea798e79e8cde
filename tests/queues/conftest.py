"""Fixtures for the queue tests: small escalation cases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from guardrail.models import Decision, EscalationCase


def build_case(
    case_id: str = "case-1", queue: str = "medical", answer: str = "Take 2 g."
) -> EscalationCase:
    return EscalationCase(
        case_id=case_id,
        queue=queue,
        created_at="2025-01-01T00:00:00+00:00",
        policy="default",
        question="How much paracetamol can I take?",
        answer=answer,
        contexts=["Adults may take up to 4 g per day."],
        decision=Decision(
            action="escalate",
            actions=["escalate"],
            flagged=True,
            score=0.8,
            threshold=0.5,
            topic="medical",
            queue=queue,
            reason="score 0.80 >= 0.50 on a sensitive topic",
        ),
    )


@pytest.fixture
def make_case() -> Callable[..., EscalationCase]:
    """A factory of minimal, valid escalation cases."""
    return build_case
