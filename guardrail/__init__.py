"""guardrail: policy-driven hallucination guardrail for RAG chatbots.

Score answers with MetaRAG, tag their topic, apply YAML topic-aware policies, and audit every
decision. The names below are the supported public API (pinned by ``tests/test_public_api.py``).

:data:`_PUBLIC` is the one list of them, by the module that defines each; ``__all__`` is read
from it and the ``TYPE_CHECKING`` block repeats it for type checkers (a test keeps the two
equal). ``import guardrail`` is cheap: the exceptions load with it, every other public name
loads on first use (PEP 562 ``__getattr__``), so a script or the CLI pays only for what it
touches.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # _PUBLIC again, for type checkers ("X as X": re-exported)
    from guardrail.actions.escalate import Escalator as Escalator
    from guardrail.audit.log import AuditLog as AuditLog
    from guardrail.audit.trail import AuditTrail as AuditTrail
    from guardrail.exceptions import AuditError as AuditError
    from guardrail.exceptions import AuditIntegrityError as AuditIntegrityError
    from guardrail.exceptions import ConfigError as ConfigError
    from guardrail.exceptions import EscalationError as EscalationError
    from guardrail.exceptions import GuardrailError as GuardrailError
    from guardrail.exceptions import JudgeError as JudgeError
    from guardrail.exceptions import JudgeRateLimited as JudgeRateLimited
    from guardrail.exceptions import JudgeRequestError as JudgeRequestError
    from guardrail.exceptions import JudgeServerError as JudgeServerError
    from guardrail.exceptions import JudgeTimeout as JudgeTimeout
    from guardrail.exceptions import PolicyError as PolicyError
    from guardrail.exceptions import ScoringError as ScoringError
    from guardrail.guard import Guard as Guard
    from guardrail.judges.base import Judge as Judge
    from guardrail.judges.base import JudgeRequest as JudgeRequest
    from guardrail.judges.base import JudgeResponse as JudgeResponse
    from guardrail.judges.registry import make_judge as make_judge
    from guardrail.judges.runner import RetryPolicy as RetryPolicy
    from guardrail.judges.scripted import ScriptedJudge as ScriptedJudge
    from guardrail.models import Citation as Citation
    from guardrail.models import Decision as Decision
    from guardrail.models import EscalationCase as EscalationCase
    from guardrail.models import Factoid as Factoid
    from guardrail.models import GuardResult as GuardResult
    from guardrail.models import JudgeCall as JudgeCall
    from guardrail.models import Label as Label
    from guardrail.models import Relation as Relation
    from guardrail.models import ScoreReport as ScoreReport
    from guardrail.models import TopicLabel as TopicLabel
    from guardrail.models import Usage as Usage
    from guardrail.models import Variant as Variant
    from guardrail.models import Verdict as Verdict
    from guardrail.policy.loader import load_policy as load_policy
    from guardrail.policy.schema import Policy as Policy
    from guardrail.queues.base import EscalationSink as EscalationSink
    from guardrail.scoring.base import Scorer as Scorer
    from guardrail.scoring.factory import build_scorer as build_scorer
    from guardrail.scoring.metarag import MetaRAG as MetaRAG
    from guardrail.scoring.reference import ReferenceMetric as ReferenceMetric
    from guardrail.scoring.rt4chart import RT4Chart as RT4Chart
    from guardrail.scoring.settings import MetaRAGConfig as MetaRAGConfig
    from guardrail.scoring.settings import RT4ChartConfig as RT4ChartConfig
    from guardrail.topics import TopicClassifier as TopicClassifier

from guardrail._version import __version__ as __version__

#: Every public name, by the module that defines it. The exceptions load with the package.
_PUBLIC: dict[str, tuple[str, ...]] = {
    "guardrail.exceptions": (
        "AuditError",
        "AuditIntegrityError",
        "ConfigError",
        "EscalationError",
        "GuardrailError",
        "JudgeError",
        "JudgeRateLimited",
        "JudgeRequestError",
        "JudgeServerError",
        "JudgeTimeout",
        "PolicyError",
        "ScoringError",
    ),
    "guardrail.actions.escalate": ("Escalator",),
    "guardrail.audit.log": ("AuditLog",),
    "guardrail.audit.trail": ("AuditTrail",),
    "guardrail.guard": ("Guard",),
    "guardrail.judges.base": ("Judge", "JudgeRequest", "JudgeResponse"),
    "guardrail.judges.registry": ("make_judge",),
    "guardrail.judges.runner": ("RetryPolicy",),
    "guardrail.judges.scripted": ("ScriptedJudge",),
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
        "Variant",
        "Verdict",
    ),
    "guardrail.policy.loader": ("load_policy",),
    "guardrail.policy.schema": ("Policy",),
    "guardrail.queues.base": ("EscalationSink",),
    "guardrail.scoring.base": ("Scorer",),
    "guardrail.scoring.factory": ("build_scorer",),
    "guardrail.scoring.metarag": ("MetaRAG",),
    "guardrail.scoring.reference": ("ReferenceMetric",),
    "guardrail.scoring.rt4chart": ("RT4Chart",),
    "guardrail.scoring.settings": ("MetaRAGConfig", "RT4ChartConfig"),
    "guardrail.topics": ("TopicClassifier",),
}
_EAGER = "guardrail.exceptions"
_MODULE_OF = {name: module for module, names in _PUBLIC.items() for name in names}
if len(_MODULE_OF) != sum(map(len, _PUBLIC.values())):
    raise RuntimeError("a public name is listed under two modules")

__all__ = sorted([*_MODULE_OF, "__version__"])

_exceptions = importlib.import_module("guardrail.exceptions")
globals().update({name: getattr(_exceptions, name) for name in _PUBLIC[_EAGER]})
del _exceptions


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
