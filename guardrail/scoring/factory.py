"""One way to turn scorer settings into a scorer: the guard, ``check``, ``eval`` and
``calibrate`` all call :func:`build_scorer`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from guardrail.judges.base import Judge
from guardrail.judges.registry import make_judge
from guardrail.scoring.settings import DEFAULT_THRESHOLD, AnyScorerSettings, MetaRAGSettings

if TYPE_CHECKING:
    from guardrail.localize.model import SpanLocalizer
    from guardrail.scoring.base import ScorerBase


def build_scorer(
    settings: AnyScorerSettings,
    *,
    judge: Judge | None = None,
    judges: dict[str, Judge] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    localizer: SpanLocalizer | Literal["settings"] | None = "settings",
) -> ScorerBase:
    """The scorer ``settings`` describe.

    ``judge``, if given, serves every stage. Otherwise each judge spec is built once and kept
    in ``judges`` (by spec): pass a dict to pre-seed it (e.g. a judge with a custom model file
    for ``settings.judge``) or to close the judges later. ``threshold`` is the scorer's default
    flagging threshold; ``localizer`` replaces the one ``settings.localize`` names.
    """
    pool: dict[str, Judge] = judges if judges is not None else {}

    def get(spec: str | None) -> Judge:
        if judge is not None:
            return judge
        spec = spec or settings.judge
        if spec not in pool:
            pool[spec] = make_judge(spec)
        return pool[spec]

    chosen: SpanLocalizer | Literal["packaged"] | None = (
        ("packaged" if settings.localize == "words" else None)
        if localizer == "settings"
        else localizer
    )
    if isinstance(settings, MetaRAGSettings):
        from guardrail.scoring.metarag import MetaRAG

        return MetaRAG(
            decomposer=get(settings.decomposer),
            generator=get(settings.generator),
            verifiers=[get(v) for v in settings.verifiers] or [get(settings.judge)],
            config=settings.config(threshold),
            retry=settings.retry,
            localizer=chosen,
        )
    from guardrail.scoring.rt4chart import RT4Chart

    return RT4Chart(
        get(settings.judge), settings.config(threshold), retry=settings.retry, localizer=chosen
    )
