"""Scorers: turn (question, answer, contexts) into a :class:`~guardrail.models.ScoreReport`."""

from guardrail.scoring.base import Scorer
from guardrail.scoring.metarag import PENALTY, MetaRAG, MetaRAGConfig
from guardrail.scoring.reference import ReferenceMetric
from guardrail.scoring.rt4chart import RT4Chart
from guardrail.scoring.templates import PromptSet

__all__ = [
    "PENALTY",
    "MetaRAG",
    "MetaRAGConfig",
    "PromptSet",
    "RT4Chart",
    "ReferenceMetric",
    "Scorer",
]
