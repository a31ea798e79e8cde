"""The scorer protocol shared by MetaRAG, RT4CHART and anything users plug in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from guardrail.models import ScoreReport


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
