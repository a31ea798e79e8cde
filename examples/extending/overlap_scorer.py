"""A custom scorer: flag answer sentences whose words the retrieved passages do not contain.

No judge, no model: a sentence's score is the share of its content words missing from the
context, and the answer's score is the highest. Crude, but instant — a first line before (or
instead of) an LLM scorer. Once this module is imported, a policy can use it::

    scorer: {method: overlap, min_words: 3}

Run it::

    python examples/extending/overlap_scorer.py
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from guardrail.models import Factoid, ReportStatus, ScoreReport
from guardrail.scoring.base import CallLog, ScorerBase
from guardrail.scoring.registry import ScorerParts, register_scorer
from guardrail.scoring.settings import ScorerWiring
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import content_keys


class OverlapSettings(ScorerWiring):
    """The policy's ``scorer:`` block for this method."""

    method: Literal["overlap"] = "overlap"
    min_words: int = Field(default=2, ge=1, description="shorter sentences are not scored")


class OverlapScorer(ScorerBase):
    method = "overlap"

    def __init__(self, min_words: int, threshold: float) -> None:
        self.min_words = min_words
        self.threshold = threshold

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        started = time.perf_counter()
        tau = self.threshold if threshold is None else threshold
        known = content_keys(" ".join(contexts))
        factoids: list[Factoid] = []
        for start, end in split_sentences(answer, rules="plain"):
            words = content_keys(answer[start:end])
            if len(words) < self.min_words:
                continue
            score = len(words - known) / len(words)
            factoids.append(
                Factoid(
                    index=len(factoids),
                    text=answer[start:end],
                    spans=[(start, end)],
                    aligned=True,
                    alignment=1.0,
                    score=score,
                    flagged=score >= tau,
                )
            )
        status: ReportStatus = "ok" if factoids else "unverifiable"
        settings: dict[str, object] = {"min_words": self.min_words}
        return self.build_report(status, factoids, tau, CallLog(), started, settings)


def build(settings: OverlapSettings, parts: ScorerParts) -> OverlapScorer:
    return OverlapScorer(settings.min_words, parts.threshold)


register_scorer("overlap", OverlapSettings, build)


if __name__ == "__main__":
    from guardrail.policy import parse_policy
    from guardrail.scoring.factory import build_scorer
    from guardrail.scoring.settings import METHODS

    policy = parse_policy(
        "name: demo\nscorer: {method: overlap, min_words: 3}\n"
        "topics: [{name: general, threshold: 0.5}]\n"
    )
    scorer = build_scorer(policy.scorer)
    answer = "The library is open on Saturdays. Entry costs five euros for adults."
    report = scorer.score_sync(
        "When is the library open?",
        answer,
        ["The city library is open on Saturdays from 10:00 to 14:00."],
    )
    print(f"methods: {', '.join(METHODS)}")
    print(f"score: {report.score:.2f} flagged: {report.flagged}")
    for text in report.flagged_text(answer):
        print(f"  flagged: {text}")
