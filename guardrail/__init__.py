"""guardrail: policy-driven hallucination guardrail for RAG chatbots.

Score answers with MetaRAG, tag their topic, apply YAML topic-aware policies, and audit every
decision. The names below are the supported public API (pinned by ``tests/test_public_api.py``).

``import guardrail`` is cheap: the exceptions load with it, every other public name loads on
first use (PEP 562 ``__getattr__``), so a script or the CLI pays only for what it touches.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:  # the same names as _LAZY, for type checkers
    from guardrail.actions import Escalator
    from guardrail.audit import AuditLog
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
    from guardrail.scoring import (
        MetaRAG,
        MetaRAGConfig,
        PromptSet,
        ReferenceMetric,
        RT4Chart,
        RT4ChartConfig,
        Scorer,
        build_scorer,
    )
    from guardrail.topics import TopicClassifier

__version__ = "0.1.0"

#: The public names loaded on first use, by the module that provides them.
_LAZY: dict[str, tuple[str, ...]] = {
    "guardrail.actions": ("Escalator",),
    "guardrail.audit": ("AuditLog",),
    "guardrail.guard": ("Guard",),
    "guardrail.judges": ("Judge", "JudgeRequest", "JudgeResponse", "RetryPolicy", "ScriptedJudge"),
    "guardrail.judges.registry": ("make_judge",),
    "guardrail.models": (
        "Citation",
        "Decision",
        "EscalationCase",
        "Factoid",
        "GuardResult",
        "JudgeCall",
        "Label",
        "Relation",
        "ScoreReport",
        "TopicLabel",
        "Usage",
        "build_scorer",
        "Variant",
        "Verdict",
    ),
    "guardrail.policy": ("Policy", "PolicyEngine", "load_policy"),
    "guardrail.scoring": (
        "MetaRAG",
        "MetaRAGConfig",
        "PromptSet",
        "ReferenceMetric",
        "RT4Chart",
        "RT4ChartConfig",
        "Scorer",
        "build_scorer",
    ),
    "guardrail.topics": ("TopicClassifier",),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


if not TYPE_CHECKING:  # hidden from type checkers, which then still flag unknown names

    def __getattr__(name: str) -> Any:
        """Import a public name's module on first access and cache the name here."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AuditError",
    "AuditIntegrityError",
    "AuditLog",
    "Citation",
    "ConfigError",
    "Decision",
    "EscalationCase",
    "EscalationError",
    "Escalator",
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
    "RT4ChartConfig",
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
    "build_scorer",
    "load_policy",
    "make_judge",
]
