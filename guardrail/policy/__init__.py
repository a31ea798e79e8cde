"""Topic-aware policies: the YAML schema, its loader, and the engine that makes decisions.

::

    policy = load_policy("policies/default.yaml")      # PolicyError on any problem
    engine = PolicyEngine(policy)
    decision = engine.decide(report, topics)            # flagged when score >= threshold
"""

from __future__ import annotations

from guardrail.policy.engine import ACTION_ORDER, PolicyEngine, strongest
from guardrail.policy.loader import format_key_path, load_policy, parse_policy
from guardrail.policy.schema import (
    AbstainAction,
    ClassifierSettings,
    EscalateAction,
    OnFlag,
    Policy,
    RegenerateAction,
    TopicRule,
)
from guardrail.scoring.settings import ScorerSettings

__all__ = [
    "ACTION_ORDER",
    "AbstainAction",
    "ClassifierSettings",
    "EscalateAction",
    "OnFlag",
    "Policy",
    "PolicyEngine",
    "RegenerateAction",
    "ScorerSettings",
    "TopicRule",
    "format_key_path",
    "load_policy",
    "parse_policy",
    "strongest",
]
