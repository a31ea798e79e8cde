"""The scorer protocol shared by MetaRAG, RT4CHART and anything users plug in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from guardrail._sync import run_sync
from guardrail.exceptions import ConfigError
from guardrail.models import ScoreReport


def check_threshold(threshold: float) -> float:
    """``threshold`` if it is a valid flagging threshold (within [0, 1]), else ``ConfigError``."""
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"threshold must be in [0, 1], got {threshold}")
    return threshold


@runtime_checkable
class Scorer(Protocol):
    method: str

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport: ...


class ScorerBase(ABC):
    """Shared base of the built-in scorers: implement :meth:`score`, get :meth:`score_sync`."""

    method: str

    @abstractmethod
    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport: ...

    def score_sync(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        """Blocking wrapper around :meth:`score`; refuses to run inside an event loop."""
        return run_sync(self.score(question, answer, contexts, threshold=threshold))
