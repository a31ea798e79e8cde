"""The turn as the actions see it: what they read, and where they write their result.

The actions sit below the policy, so a turn's rule is described here by what the actions
read of it (:class:`ActionRule`) rather than by the policy's own class: any object with these
attributes serves (the policy's :class:`~guardrail.policy.schema.TopicRule` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from guardrail.actions.escalate import Escalator
from guardrail.models import Citation, Decision, ScoreReport, TopicLabel

__all__ = ["ActionRule", "Turn"]


class EscalateSetting(Protocol):
    """What the actions read of ``on_flag.escalate``."""

    @property
    def message(self) -> str: ...

    def in_language(self, code: str | None) -> str: ...


class FlagSettings(Protocol):
    """What the actions read of a rule's ``on_flag``
    (:class:`~guardrail.actions.settings.OnFlag`)."""

    @property
    def custom(self) -> Sequence[str]: ...

    @property
    def escalate(self) -> EscalateSetting | None: ...


class ActionRule(Protocol):
    """What the actions read of the turn's topic rule."""

    @property
    def name(self) -> str: ...

    @property
    def on_flag(self) -> FlagSettings: ...

    @property
    def abstain_message(self) -> str: ...

    def abstain_message_in(self, language: str | None) -> str: ...


@dataclass
class Turn:
    """One guarded turn as the actions see it; they write the ``final`` text and the rest."""

    audit_id: str
    policy: str
    question: str
    answer: str  # the answer that was scored
    contexts: list[str]
    topics: list[TopicLabel]
    rule: ActionRule
    decision: Decision
    report: ScoreReport | None
    escalator: Escalator
    final: str  # the text the user will see
    audit_trail: str | None = None  # where the turn's record goes (EscalationCase.audit_trail)
    citations: list[Citation] = field(default_factory=list)
    highlighted: str | None = None
    escalation_error: str | None = None
