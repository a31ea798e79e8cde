"""What the guard does to a flagged answer: highlight, cite, regenerate, abstain, escalate."""

from guardrail.actions.answers import AnswerLike, normalize_answer, normalize_contexts
from guardrail.actions.cite import add_citations
from guardrail.actions.escalate import Escalator
from guardrail.actions.highlight import mark_spans

__all__ = [
    "AnswerLike",
    "Escalator",
    "add_citations",
    "mark_spans",
    "normalize_answer",
    "normalize_contexts",
]
