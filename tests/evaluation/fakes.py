"""Test doubles for the evaluation harness: a scorer with fixed answers, a rule-based judge."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from guardrail.exceptions import ScoringError
from guardrail.models import Factoid, Label, ScoreReport, Span, Usage
from guardrail.testing import TestJudge


@dataclass
class FakeScorer:
    """Returns ``outputs[answer] = (score, spans)`` (default 0.0, no spans); counts calls.

    Answers in ``fail`` raise :class:`ScoringError`, like a scorer whose judge went down.
    """

    outputs: dict[str, tuple[float, list[Span]]] = field(default_factory=dict)
    fail: set[str] = field(default_factory=set)
    latency_s: float = 0.0
    calls: list[str] = field(default_factory=list)
    method: str = "fake"
    threshold: float = 0.5

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        self.calls.append(answer)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if answer in self.fail:
            raise ScoringError("judge unavailable")
        tau = self.threshold if threshold is None else threshold
        score, spans = self.outputs.get(answer, (0.0, []))
        factoid = Factoid(
            index=0,
            text=answer,
            spans=spans,
            aligned=bool(spans),
            alignment=1.0 if spans else 0.0,
            score=score,
            flagged=score >= tau,
        )
        return ScoreReport(
            method=self.method,
            score=score,
            threshold=tau,
            flagged=score >= tau,
            factoids=[factoid],
            flagged_spans=spans if score >= tau else [],
            usage=Usage(judge_calls=3, prompt_tokens=100, completion_tokens=20, wall_seconds=0.5),
        )


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def found_in_context(statement: str, context: str) -> Label:
    """YES when the statement's words occur, in order, in the context; else NOT SURE."""
    return Label.YES if _norm(statement) in _norm(context) else Label.NOT_SURE


def substring_judge(latency_s: float = 0.0) -> TestJudge:
    """Answers every RT4CHART and MetaRAG task: a claim is ENTAILED/YES iff its words (in
    order) occur in the context; each answer sentence (each text asked about) is one claim."""
    return TestJudge(found_in_context, decompose=lambda text: [text], latency_s=latency_s)
