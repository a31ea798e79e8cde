"""One way to turn scorer settings into a scorer: the guard, ``check``, ``eval`` and
``calibrate`` all call :func:`build_scorer`, which builds the judges and hands them to the
method's registered factory (:mod:`guardrail.scoring.registry`). The built-in methods'
factories are below."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from guardrail.judges.base import Judge
from guardrail.judges.cache import CachingJudge, ResponseCache
from guardrail.judges.registry import make_judge, spec_capabilities
from guardrail.scoring.registry import ScorerParts, scorer_entry
from guardrail.scoring.settings import (
    DEFAULT_THRESHOLD,
    AnyScorerSettings,
    MetaRAGSettings,
    RT4ChartSettings,
    model_verifier,
)
from guardrail.scoring.templates import PromptSet

if TYPE_CHECKING:
    from guardrail.localize.model import SpanLocalizer
    from guardrail.scoring.base import ScorerBase
    from guardrail.scoring.metarag import MetaRAG
    from guardrail.scoring.rt4chart import RT4Chart


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
    in ``judges`` (by spec): pass a dict to pre-seed it or to close the judges later (the
    ``local:trained`` specs load ``settings.judge_model`` when it is set). ``threshold`` is the
    scorer's default flagging threshold; ``localizer`` replaces the one the settings name
    (``localize`` and ``localizer_model``). Model files are read here, so a bad path fails
    before anything is scored.
    """
    entry = scorer_entry(settings.method)
    pool: dict[str, Judge] = judges if judges is not None else {}
    cache = ResponseCache(settings.response_cache) if settings.response_cache else None
    cached: dict[int, Judge] = {}  # one cache wrapper per judge object
    used: dict[int, Judge] = {}  # every judge handed to the scorer, once

    def get(spec: str | None) -> Judge:
        chosen = pick(spec)
        used.setdefault(id(chosen), chosen)
        return chosen

    def pick(spec: str | None) -> Judge:
        chosen_judge = judge
        if chosen_judge is None:
            spec = spec or settings.judge
            if spec not in pool:
                pool[spec] = judge_for(settings, spec)
            chosen_judge = pool[spec]
        if cache is None:
            return chosen_judge
        return cached.setdefault(id(chosen_judge), CachingJudge(chosen_judge, cache))

    chosen: SpanLocalizer | Literal["packaged"] | None
    if localizer != "settings":
        chosen = localizer
    elif settings.localize != "words":
        chosen = None
    elif settings.localizer_model is not None:
        from guardrail.localize.model import TokenLocalizer

        chosen = TokenLocalizer.load(settings.localizer_model)
    else:
        chosen = "packaged"
    scorer = entry.build(settings, ScorerParts(judge=get, threshold=threshold, localizer=chosen))
    scorer.judges = tuple(used.values())
    return scorer


def metarag_scorer(settings: MetaRAGSettings, parts: ScorerParts) -> MetaRAG:
    """The ``metarag`` method's factory."""
    from guardrail.scoring.metarag import MetaRAG

    return MetaRAG(
        prompts=_prompts("metarag_v1", settings.prompts),
        decomposer=parts.judge(settings.decomposer),
        generator=parts.judge(settings.generator),
        verifiers=[parts.judge(v) for v in settings.verifiers] or [parts.judge(settings.judge)],
        config=settings.config(parts.threshold),
        retry=settings.retry,
        localizer=parts.localizer,
    )


def rt4chart_scorer(settings: RT4ChartSettings, parts: ScorerParts) -> RT4Chart:
    """The ``rt4chart`` method's factory."""
    from guardrail.scoring.rt4chart import RT4Chart

    return RT4Chart(
        parts.judge(settings.judge),
        settings.config(parts.threshold),
        prompts=_prompts("rt4chart_v1", settings.prompts),
        retry=settings.retry,
        localizer=parts.localizer,
    )


def _prompts(name: str, style: str) -> PromptSet:
    builtin = PromptSet.builtin(name)
    return builtin.fenced() if style == "fenced" else builtin


def judge_options(settings: AnyScorerSettings, spec: str) -> dict[str, Any]:
    """The options the settings give the judge ``spec`` names: ``stream`` for judges that can
    stream (``judge_stream``: ``auto`` streams for those that need no key, i.e. a model server
    of your own)."""
    capabilities = spec_capabilities(spec)
    if not capabilities.streams:
        return {}
    choice = settings.judge_stream
    return {"stream": choice == "on" or (choice == "auto" and not capabilities.key_env)}


def judge_for(settings: AnyScorerSettings, spec: str | None = None) -> Judge:
    """The judge ``spec`` (default: the settings' main judge) names, built as the settings say:
    a ``local:trained`` (``local:encoder``) spec verifies with the model file (directory)
    ``settings.judge_model`` when it is set; OpenAI-API judges stream as ``judge_stream``
    says."""
    spec = spec or settings.judge
    verifier = model_verifier(spec)
    if settings.judge_model is None or verifier is None:
        return make_judge(spec, **judge_options(settings, spec))
    from guardrail.judges.local import make_local_judge

    return make_local_judge(verifier, model_path=settings.judge_model)
