"""The per-sentence check of a held stream: one sentence scored against the contexts.

A held sentence must be checked in milliseconds, so it is scored offline: with the guard's own
scorer when every judge the policy names is the offline one (``local``, ``local:trained``,
...), otherwise with the same scorer settings on the offline judge — the *screen* that stands
in for the LLM judge until the full answer is scored at the end of the stream.

The check fails closed: a sentence whose scoring fails (judge error, timeout) is not released.
"""

from __future__ import annotations

from dataclasses import dataclass

from guardrail.exceptions import JudgeError, ScoringError
from guardrail.judges.base import Judge
from guardrail.judges.registry import parse_spec
from guardrail.models import JudgeCall, ScoreReport
from guardrail.policy.schema import Policy
from guardrail.scoring.base import Scorer

__all__ = ["SentenceChecker", "SentenceVerdict", "offline_screen"]


@dataclass(frozen=True)
class SentenceVerdict:
    """One checked sentence: released when ``ok``; ``report`` is None when scoring failed."""

    ok: bool
    score: float | None
    report: ScoreReport | None
    error: str | None = None


def _is_offline(spec: str) -> bool:
    return parse_spec(spec).kind == "local"


def offline_screen(policy: Policy, scorer: Scorer, built: dict[str, Judge]) -> Scorer:
    """``scorer`` itself when the policy scores offline, else the policy's scorer settings
    on the offline judge (built once; ``built`` keeps its judge for closing)."""
    settings = policy.scorer
    if all(_is_offline(spec) for spec in settings.judge_specs()):
        return scorer
    from guardrail.scoring.factory import build_scorer

    update: dict[str, object] = {"judge": "local"}
    if hasattr(settings, "decomposer"):
        update.update(decomposer=None, generator=None, verifiers=[])
    offline = settings.model_copy(update=update)
    return build_scorer(offline, judges=built)


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
            report = await self.scorer.score(question, sentence, passages, threshold=threshold)
        except ScoringError as exc:
            calls.extend(exc.calls)
            return SentenceVerdict(False, None, None, f"sentence check failed: {exc}")
        except JudgeError as exc:
            return SentenceVerdict(
                False, None, None, f"sentence check failed: {type(exc).__name__}: {exc}"
            )
        calls.extend(report.calls)
        return SentenceVerdict(report.score < threshold, report.score, report)
