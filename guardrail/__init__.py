"""guardrail: policy-driven hallucination guardrail for RAG chatbots.

Score answers with MetaRAG, tag their topic, apply YAML topic-aware policies, and audit every
decision. The names below are the supported public API (pinned by ``tests/test_public_api.py``).
"""

from guardrail.exceptions import (
    AuditError,
    AuditIntegrityError,
    ConfigError,
    EscalationError,
    GuardrailError,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeServerError,
    JudgeTimeout,
    PolicyError,
    ScoringError,
)
from guardrail.guard import Guard
from guardrail.judges import Judge, JudgeRequest, JudgeResponse, RetryPolicy, ScriptedJudge
from guardrail.judges.registry import make_judge
from guardrail.models import (
    Citation,
    Decision,
    EscalationCase,
    Factoid,
    GuardResult,
    JudgeCall,
    Label,
    Relation,
    ScoreReport,
    TopicLabel,
    Usage,
    Variant,
    Verdict,
)
from guardrail.policy import Policy, PolicyEngine, load_policy
from guardrail.scoring import MetaRAG, MetaRAGConfig, PromptSet, ReferenceMetric, RT4Chart, Scorer
from guardrail.topics import TopicClassifier

__version__ = "0.1.0"

__all__ = [
    "AuditError",
    "AuditIntegrityError",
    "Citation",
    "ConfigError",
    "Decision",
    "EscalationCase",
    "EscalationError",
    "Factoid",
    "Guard",
    "GuardResult",
    "GuardrailError",
    "Judge",
    "JudgeCall",
    "JudgeError",
    "JudgeRateLimited",
    "JudgeRequest",
    "JudgeRequestError",
    "JudgeResponse",
    "JudgeServerError",
    "JudgeTimeout",
    "Label",
    "MetaRAG",
    "MetaRAGConfig",
    "Policy",
    "PolicyEngine",
    "PolicyError",
    "PromptSet",
    "RT4Chart",
    "ReferenceMetric",
    "Relation",
    "RetryPolicy",
    "ScoreReport",
    "Scorer",
    "ScoringError",
    "ScriptedJudge",
    "TopicClassifier",
    "TopicLabel",
    "Usage",
    "Variant",
    "Verdict",
    "__version__",
    "load_policy",
    "make_judge",
]
