"""What the guard does to a flagged answer: highlight, cite, custom actions, regenerate,
abstain, escalate — in the order of the action table (:mod:`guardrail.actions.table`)."""

from guardrail.actions.answers import AnswerLike, normalize_answer, normalize_contexts
from guardrail.actions.cite import add_citations
from guardrail.actions.custom import CustomAction, register_action
from guardrail.actions.escalate import Escalator
from guardrail.actions.highlight import mark_spans
from guardrail.actions.table import ACTION_ORDER, ACTIONS
from guardrail.actions.turn import Turn

__all__ = [
    "ACTIONS",
    "ACTION_ORDER",
    "AnswerLike",
    "CustomAction",
    "Escalator",
    "Turn",
    "add_citations",
    "mark_spans",
    "normalize_answer",
    "normalize_contexts",
    "register_action",
]
