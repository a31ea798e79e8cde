"""Every scorer setting, defined once: its type, bounds, default and description.

Three layers, so each field exists in one class only::

    MetaRAGParams / RT4ChartParams     the method's own knobs (k, window, ...)
      + Threshold                      -> MetaRAGConfig / RT4ChartConfig: what the scorer takes
      + ScorerWiring (judges, localize, the RetryPolicy fields)
                                       -> MetaRAGSettings / RT4ChartSettings: a policy's
                                          ``scorer:`` block, and what build_scorer builds from

:data:`ScorerSettings` is the union of the registered settings models, told apart by
``method`` (default ``metarag``); the built-in methods are registered at the end of this module
through :func:`~guardrail.scoring.registry.register_scorer`, like any plug-in. The threshold
is not a policy setting (each topic has its own); outside a policy (``guardrail check``/``eval``)
it is a flag with the default :data:`DEFAULT_THRESHOLD`.
:func:`with_overrides` applies CLI flags onto settings and names the flag in any error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from guardrail.exceptions import ConfigError
from guardrail.judges.registry import parse_spec, spec_capabilities
from guardrail.judges.runner import RetryPolicy
from guardrail.scoring.registry import SETTINGS_MODELS, MethodNames, register_scorer, settings_union
from guardrail.validation import Settings, error_line

DEFAULT_THRESHOLD = 0.5
EnsembleRule = Literal["majority", "mean_penalty"]
Localize = Literal["words", "factoids"]
Protocol = Literal["paper", "factoid", "answer"]
StructuredOutput = Literal["auto", "off"]
JudgeStream = Literal["auto", "on", "off"]


def check_judge_spec(spec: str) -> str:
    """Reject judge specs that :func:`guardrail.judges.registry.make_judge` cannot build
    (same parser, no SDK import)."""
    try:
        parse_spec(spec)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return spec.strip()


JudgeSpecText = Annotated[str, AfterValidator(check_judge_spec)]


class Threshold(Settings):
    threshold: float = Field(
        default=DEFAULT_THRESHOLD, ge=0.0, le=1.0, description="flag when score >= this"
    )


# --- each method's own knobs ---------------------------------------------------------------


class MetaRAGParams(Settings):
    k: int = Field(default=2, ge=1, le=10, description="variants per metamorphic relation")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="mutation temperature")
    ensemble_rule: EnsembleRule = Field(
        default="majority", description="how a verifier ensemble's labels combine"
    )
    min_alignment: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="a factoid maps to an answer span when this share of its words align",
    )
    max_tokens: int = Field(
        default=2048,
        ge=16,
        le=1_000_000,
        description="upper bound on one judge call's completion tokens; each stage asks for "
        "what its reply needs, up to this (decompose: twice the answer's tokens; a mutation: "
        "48 a variant; a verdict: 40 a statement)",
    )
    cascade: bool = Field(
        default=False,
        description="screen each factoid with the offline verifier first: a factoid whose "
        "unsupported-risk is at or below cascade_cutoff is settled as supported without LLM "
        "calls; the rest go to the judge (topics may override: topics[].cascade)",
    )
    cascade_cutoff: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="the screen's cut-off; null: the packaged one, calibrated by grouped "
        "cross-validation on RAGTruth dev (guardrail/scoring/cascade.json)",
    )
    protocol: Protocol = Field(
        default="paper",
        description="judge calls per answer: 'paper' (one call per mutation relation and per "
        "variant), 'factoid' (all mutations in one call, one verify call per factoid) or "
        "'answer' (all mutations in one call, one verify call for the whole answer)",
    )
    structured_output: StructuredOutput = Field(
        default="auto",
        description="'auto': every judge request carries the JSON Schema of its reply, and "
        "judges that can constrain output use it (OpenAI response_format, vLLM guided JSON, "
        "llama.cpp grammars, Anthropic tool input); others read the prompt's text format. "
        "'off': plain text only",
    )


class RT4ChartParams(Settings):
    window: int = Field(
        default=25, ge=1, le=100_000, description="context chunk size, in sentences"
    )
    overlap: int = Field(
        default=10, ge=0, le=100_000, description="sentences shared by adjacent chunks"
    )
    baseless_score: float = Field(
        default=0.5, gt=0.0, lt=1.0, description="score of a claim the context does not cover"
    )
    global_verification: bool = Field(
        default=True, description="re-judge every claim against the full context"
    )
    refine_spans: bool = Field(
        default=True, description="narrow a flagged sentence to the words of its claim"
    )

    @model_validator(mode="after")
    def _overlap_below_window(self) -> RT4ChartParams:
        if self.overlap >= self.window:
            raise ValueError(
                f"overlap must be smaller than window, got overlap {self.overlap} "
                f"and window {self.window}"
            )
        return self


class MetaRAGConfig(MetaRAGParams, Threshold):
    """What :class:`~guardrail.scoring.metarag.MetaRAG` takes. Defaults are the paper's best
    configuration (k = 2, temperature 0)."""


class RT4ChartConfig(RT4ChartParams, Threshold):
    """What :class:`~guardrail.scoring.rt4chart.RT4Chart` takes (the paper's window (25, 10))."""


# --- a scorer as a policy (or the CLI) describes it ----------------------------------------


class ScorerWiring(RetryPolicy):
    """What every scorer needs around its method: judges, span localization, retries.

    A scorer's settings model subclasses this and adds ``method: Literal["<name>"]``.
    """

    if TYPE_CHECKING:  # each subclass declares its own Literal method field
        method: str

    judge: JudgeSpecText = Field(
        default="local",
        description="judge for every stage: local | local:trained | openai:MODEL | "
        "anthropic:MODEL | openai-compatible:MODEL@URL",
    )
    judge_stream: JudgeStream = Field(
        default="auto",
        description="stream the replies of OpenAI-API judges: 'auto' streams for "
        "openai-compatible:MODEL@URL judges and not for openai:MODEL; 'on'/'off' for every "
        "OpenAI-API judge. A local server such as llama-cpp-python stops generating a streamed "
        "reply when a deadline closes its request, but finishes a plain one first, holding "
        "its slot; other judges ignore it",
    )
    localize: Localize = Field(
        default="words",
        description="flagged spans: 'words' narrows each flagged factoid to its unsupported "
        "words (guardrail.localize, judge-independent); 'factoids' keeps whole factoid spans",
    )
    prompts: Literal["fenced", "paper"] = Field(
        default="fenced",
        description="'fenced': untrusted text (question, answer, passages) between data "
        "markers, with a system message saying it is data, not instructions; 'paper': the "
        "published prompt text exactly",
    )
    response_cache: str | None = Field(
        default=None,
        description="SQLite file of judge replies: temperature-0 calls asked before are "
        "answered from it (opt-in; see guardrail.judges.cache)",
    )
    judge_model: str | None = Field(
        default=None,
        description="verifier model for the local:trained judge specs (a file, written by "
        "scripts/train_verifier.py) or the local:encoder ones (a directory, written by "
        "scripts/train_encoder.py), instead of the packaged one; a relative path is read from "
        "the working directory",
    )
    localizer_model: str | None = Field(
        default=None,
        description="word-localizer file for localize: words, instead of the packaged one "
        "(scripts/train_localizer.py writes it); a relative path is read from the working "
        "directory",
    )

    @model_validator(mode="after")
    def _model_files_have_a_use(self) -> ScorerWiring:
        if self.localizer_model is not None and self.localize != "words":
            raise ValueError("localizer_model needs localize: words")
        if self.judge_model is not None and not any(
            model_verifier(spec) for spec in self.judge_specs()
        ):
            raise ValueError("judge_model needs a local:trained or local:encoder judge")
        return self

    def judge_specs(self) -> list[str]:
        """Every judge spec the scorer uses."""
        return [self.judge]


def model_verifier(spec: str) -> str | None:
    """``"trained"`` or ``"encoder"`` for the local judge specs that read a model
    (``local:trained``, ``local:encoder``), else ``None``."""
    parsed = parse_spec(spec)
    from guardrail.judges.local.verifiers import VERIFIER_REGISTRY

    if not spec_capabilities(spec).reads_model or not parsed.model:
        return None
    entry = VERIFIER_REGISTRY.find(parsed.model)
    return parsed.model if entry is not None and entry.capabilities.reads_model else None


class MetaRAGSettings(MetaRAGParams, ScorerWiring):
    """A MetaRAG scorer: decompose, mutate, verify (Section 3 of the MetaRAG paper)."""

    method: Literal["metarag"] = Field(default="metarag", description="metarag | rt4chart")
    decomposer: JudgeSpecText | None = Field(default=None, description="judge for decomposition")
    generator: JudgeSpecText | None = Field(
        default=None, description="judge for mutation generation"
    )
    verifiers: list[JudgeSpecText] = Field(
        default_factory=list, description="verifier ensemble; empty means [judge]"
    )

    def judge_specs(self) -> list[str]:
        specs = [self.judge, self.decomposer, self.generator, *self.verifiers]
        return [s for s in specs if s is not None]

    def config(self, threshold: float = DEFAULT_THRESHOLD) -> MetaRAGConfig:
        return MetaRAGConfig(threshold=threshold, **_fields_of(self, MetaRAGParams))


class RT4ChartSettings(RT4ChartParams, ScorerWiring):
    """An RT4CHART scorer: claims, local (chunked) then global verification."""

    # A scorer block without ``method`` is MetaRAG: say so to JSON Schema validators too.
    model_config = ConfigDict(json_schema_extra={"required": ["method"]})

    method: Literal["rt4chart"] = Field(default="rt4chart", description="metarag | rt4chart")

    def config(self, threshold: float = DEFAULT_THRESHOLD) -> RT4ChartConfig:
        return RT4ChartConfig(threshold=threshold, **_fields_of(self, RT4ChartParams))


register_scorer("metarag", MetaRAGSettings, "guardrail.scoring.factory:metarag_scorer")
register_scorer("rt4chart", RT4ChartSettings, "guardrail.scoring.factory:rt4chart_scorer")

#: method -> settings model of every registered scorer (a live, read-only view).
SETTINGS = SETTINGS_MODELS
#: The registered methods (a live sequence: plug-ins registered later are in it too).
METHODS = MethodNames()
#: The scorer block of a policy: the built-in settings models, told apart by ``method``
#: (:attr:`guardrail.policy.Policy.scorer` also takes the scorers registered later).
ScorerSettings = settings_union()
#: The type of any scorer's settings (the built-in ones and plug-ins').
AnyScorerSettings = ScorerWiring


def check_flag_threshold(value: float, flag: str = "--threshold") -> float:
    """``value`` if it is a valid threshold, else :class:`ConfigError` naming ``flag``."""
    try:
        return Threshold.model_validate({"threshold": value}).threshold
    except ValidationError as exc:
        raise ConfigError(error_line(exc, {"threshold": flag})) from None


def _fields_of(settings: Settings, part: type[Settings]) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in part.model_fields}


def with_overrides(
    settings: AnyScorerSettings, overrides: Mapping[str, tuple[str, Any]]
) -> AnyScorerSettings:
    """``settings`` with CLI overrides applied and validated again.

    ``overrides`` maps a field to ``(flag, value)``; a ``None`` value means "not given". A new
    ``method`` keeps the settings both methods share (judge, localize, retries). An invalid
    value, or a flag that the method does not have, raises :class:`ConfigError` naming the flag.
    """
    given = {name: value for name, (_flag, value) in overrides.items() if value is not None}
    flags = {name: flag for name, (flag, _value) in overrides.items()}
    method = given.get("method", settings.method)
    if method not in SETTINGS:
        flag = flags.get("method", "method")
        raise ConfigError(f"{flag}: unknown method {method!r}; expected one of {tuple(METHODS)}")
    target = SETTINGS[method]
    data = settings.model_dump()
    if method != settings.method:
        data = {k: v for k, v in data.items() if k in ScorerWiring.model_fields}
    data.update(given, method=method)
    for name in given:
        if name not in target.model_fields:
            raise ConfigError(f"{flags[name]}: not a setting of method {method!r}")
    try:
        return cast("ScorerWiring", target.model_validate(data))
    except ValidationError as exc:
        problem = error_line(exc, flags)
        if not exc.errors()[0]["loc"]:  # a rule across fields: name the flags given
            problem = ", ".join(flags[n] for n in given if n != "method") + ": " + problem
        raise ConfigError(problem) from None
