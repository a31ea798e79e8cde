"""Scorers: turn (question, answer, contexts) into a :class:`~guardrail.models.ScoreReport`."""

from guardrail.scoring.base import Scorer
from guardrail.scoring.metarag import PENALTY, MetaRAG, MetaRAGConfig
from guardrail.scoring.templates import PromptSet

__all__ = ["PENALTY", "MetaRAG", "MetaRAGConfig", "PromptSet", "Scorer"]
