"""Scorers: turn (question, answer, contexts) into a :class:`~guardrail.models.ScoreReport`."""

from guardrail.scoring.base import Scorer
from guardrail.scoring.factory import build_scorer
from guardrail.scoring.metarag import PENALTY, MetaRAG
from guardrail.scoring.reference import ReferenceMetric
from guardrail.scoring.rt4chart import RT4Chart
from guardrail.scoring.settings import (
    MetaRAGConfig,
    MetaRAGSettings,
    RT4ChartConfig,
    RT4ChartSettings,
    ScorerSettings,
)
from guardrail.scoring.templates import PromptSet

__all__ = [
    "PENALTY",
    "MetaRAG",
    "MetaRAGConfig",
    "MetaRAGSettings",
    "PromptSet",
    "RT4Chart",
    "RT4ChartConfig",
    "RT4ChartSettings",
    "ReferenceMetric",
    "Scorer",
    "ScorerSettings",
    "build_scorer",
]
