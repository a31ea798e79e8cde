"""The per-sentence check of a held stream: one sentence scored against the contexts.

A held sentence must be checked in milliseconds, so it is scored offline: with the turn's own
scorer when every judge it uses declares itself offline (the offline judge, the test doubles,
a plug-in registered as offline), otherwise with the policy's scorer settings on the offline
judge — the *screen* that stands in for the LLM judge until the full answer is scored at the
end of the stream. The scorer is the turn's: under ``Guard.override`` the override's.

The check fails closed: a sentence whose scoring fails (judge error, timeout) is not released.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from guardrail.exceptions import JudgeError, ScoringError
from guardrail.judges.registry import scorer_is_offline
from guardrail.models import JudgeCall, ScoreReport
from guardrail.policy.schema import Policy
from guardrail.scoring.base import Scorer
from guardrail.scoring.deadline import bounded_score

__all__ = ["SentenceChecker", "SentenceVerdict", "offline_screen", "sentence_checker"]


@dataclass(frozen=True)
class SentenceVerdict:
    """One checked sentence: released when ``ok``; ``report`` is None when scoring failed."""

    ok: bool
    score: float | None
    report: ScoreReport | None
    error: str | None = None


def offline_screen(policy: Policy, scorer: Scorer) -> Scorer:
    """``scorer`` itself when every judge it uses works offline (its judges say so through
    their capabilities), else the policy's scorer settings on the offline judge."""
    if scorer_is_offline(scorer):
        return scorer
    from guardrail.scoring.factory import build_scorer

    settings = policy.scorer
    update: dict[str, object] = {"judge": "local"}
    if hasattr(settings, "decomposer"):
        update.update(decomposer=None, generator=None, verifiers=[])
    offline = settings.model_copy(update=update)
    return build_scorer(offline)


#: The sentence checker of each scorer a stream has used (kept while the scorer lives).
_CHECKERS: weakref.WeakKeyDictionary[Scorer, SentenceChecker] = weakref.WeakKeyDictionary()


def sentence_checker(policy: Policy, scorer: Scorer) -> SentenceChecker:
    """The per-sentence checker of a held stream whose turn scores with ``scorer`` (built on
    first use: an override's scorer gets its own, and the guard's is untouched by it)."""
    checker = _CHECKERS.get(scorer)
    if checker is None:
        checker = _CHECKERS[scorer] = SentenceChecker(offline_screen(policy, scorer))
    return checker


class SentenceChecker:
    """Scores single sentences with :func:`offline_screen`'s scorer at a topic's threshold."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    async def check(
        self,
        question: str,
        sentence: str,
        passages: list[str],
        threshold: float,
        calls: list[JudgeCall],
    ) -> SentenceVerdict:
        """Score ``sentence``; its judge calls are added to ``calls`` (the turn's record)."""
        if not sentence.strip():
            return SentenceVerdict(ok=True, score=None, report=None)
        try:
            report = await bounded_score(
                self.scorer, question, sentence, passages, threshold=threshold
            )
        except ScoringError as exc:
            calls.extend(exc.calls)
            return SentenceVerdict(False, None, None, f"sentence check failed: {exc}")
        except JudgeError as exc:
            return SentenceVerdict(
                False, None, None, f"sentence check failed: {type(exc).__name__}: {exc}"
            )
        calls.extend(report.calls)
        return SentenceVerdict(report.score < threshold, report.score, report)
