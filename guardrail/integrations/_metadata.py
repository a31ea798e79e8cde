"""The guard's decision as a framework result's metadata (plain JSON types)."""

from __future__ import annotations

from typing import Any

from guardrail.models import GuardResult

#: The key the adapters put the decision under, in every framework's metadata.
METADATA_KEY = "guardrail"


def decision_metadata(result: GuardResult) -> dict[str, Any]:
    """What a caller needs to act on a guarded answer, JSON-serializable."""
    decision = result.decision
    return {
        "audit_id": result.audit_id,
        "policy": result.policy,
        "action": decision.action,
        "actions": list(decision.actions),
        "flagged": decision.flagged,
        "escalated": "escalate" in decision.actions,
        "score": decision.score,
        "threshold": decision.threshold,
        "topic": decision.topic,
        "topics": [t.label for t in result.topics],
        "queue": decision.queue,
        "reason": decision.reason,
        "error": decision.error,
        "original_answer": result.original_answer,
        "highlighted": result.highlighted,
        "citations": [c.model_dump(mode="json") for c in result.citations],
    }
