"""The curated public API: every exported name exists, and nothing leaks in unannounced."""

from __future__ import annotations

import guardrail

EXPECTED = {
    "AuditError", "AuditIntegrityError", "Citation", "ConfigError", "Decision", "EscalationCase",
    "EscalationError", "Factoid", "GuardResult", "GuardrailError", "Judge", "JudgeCall",
    "JudgeError", "JudgeRateLimited", "JudgeRequest", "JudgeRequestError", "JudgeResponse",
    "JudgeServerError", "JudgeTimeout", "Label", "MetaRAG", "MetaRAGConfig", "PolicyError",
    "PromptSet", "Relation", "RetryPolicy", "ScoreReport", "Scorer", "ScoringError",
    "ScriptedJudge", "TopicLabel", "Usage", "Variant", "Verdict", "__version__", "make_judge",
    "Guard", "Policy", "PolicyEngine", "load_policy", "RT4Chart", "ReferenceMetric",
    "TopicClassifier",
}  # fmt: skip


def test_all_is_pinned():
    """__all__ is exactly the documented set; changing it is a deliberate act."""
    assert set(guardrail.__all__) == EXPECTED


def test_every_exported_name_resolves():
    """Each name in __all__ is importable from the top level."""
    for name in guardrail.__all__:
        assert getattr(guardrail, name) is not None
