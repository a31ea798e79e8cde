"""The scorer protocol shared by MetaRAG, RT4CHART and anything users plug in."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from guardrail._sync import run_sync
from guardrail.exceptions import ConfigError
from guardrail.models import ScoreReport, merge_spans

if TYPE_CHECKING:
    from guardrail.localize.model import SpanLocalizer

_log = logging.getLogger(__name__)


def resolve_localizer(
    choice: SpanLocalizer | Literal["packaged"] | None,
) -> SpanLocalizer | None:
    """``"packaged"`` -> the built-in word-level localizer; ``None`` -> no narrowing."""
    if choice == "packaged":
        from guardrail.localize.model import packaged_localizer

        return packaged_localizer()
    if choice is not None and not callable(getattr(choice, "narrow", None)):
        raise ConfigError("localizer must have a narrow() method, be 'packaged', or be None")
    return choice


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
    localizer: SpanLocalizer | None = None

    def localized(
        self, report: ScoreReport, question: str, answer: str, contexts: Sequence[str]
    ) -> ScoreReport:
        """``report`` narrowed by :attr:`localizer` (if any).

        Every factoid that scored above zero and has spans gets ``focus``; ``flagged_spans``
        becomes the focus of the flagged factoids. The flag, the scores and the factoids' own
        spans are unchanged. Should the localizer fail, the report is kept as it was and the
        failure is noted in ``settings``: narrowing is a refinement and never costs a report.
        """
        if self.localizer is None or not any(c.strip() for c in contexts):
            return report
        targets = [i for i, f in enumerate(report.factoids) if f.score > 0 and f.spans]
        if not targets:
            return report
        try:
            narrowed = self.localizer.narrow(
                answer, question, contexts, [report.factoids[i].spans for i in targets]
            )
            if len(narrowed) != len(targets):
                raise ValueError(f"{len(narrowed)} results for {len(targets)} factoids")
        except Exception as exc:
            _log.warning("localizer %s failed: %r", self.localizer.name, exc)
            failed = f"{self.localizer.name} (failed: {type(exc).__name__})"
            return report.model_copy(update={"settings": {**report.settings, "localizer": failed}})
        factoids = list(report.factoids)
        for i, focus in zip(targets, narrowed, strict=True):
            factoids[i] = factoids[i].model_copy(update={"focus": list(focus)})
        spans = [s for f in factoids if f.flagged for s in (f.focus or f.spans)]
        return report.model_copy(
            update={
                "factoids": factoids,
                "flagged_spans": merge_spans(spans) if report.flagged else [],
            }
        )

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
