"""The policy file's shape, as pydantic v2 models.

A policy is configuration a compliance reviewer signs off, so the models are strict: unknown
keys are errors (a misspelt ``treshold`` must not silently fall back to a default), YAML
strings are not coerced into numbers, and cross-field rules (unique topic names, a defined
default topic, an escalation queue to fail closed into) are checked here rather than at the
first request. Cross-field failures carry their own key path in the error context so the
loader can report ``topics[2].on_error`` instead of "the policy".

The same models generate ``policies/policy.schema.json`` (``guardrail schema``), which editors
use to autocomplete and check policy files.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from guardrail.actions.settings import (
    DEFAULT_ABSTAIN_MESSAGE,
    DEFAULT_ABSTAIN_MESSAGES,
    DEFAULT_HOLDING_MESSAGE,
    DEFAULT_REGENERATE_INSTRUCTION,
    NAME_PATTERN,
    AbstainAction,
    EscalateAction,
    OnFlag,
    RegenerateAction,
)
from guardrail.canonical import canonical_json
from guardrail.models import Sensitivity
from guardrail.scoring.registry import SETTINGS_MODELS, on_register, settings_union
from guardrail.scoring.settings import ScorerWiring
from guardrail.validation import Settings

__all__ = [
    "DEFAULT_ABSTAIN_MESSAGE",
    "DEFAULT_HOLDING_MESSAGE",
    "DEFAULT_REGENERATE_INSTRUCTION",
    "RULE_ERROR",
    "AbstainAction",
    "ClassifierSettings",
    "EscalateAction",
    "LanguageSettings",
    "OnFlag",
    "Policy",
    "RegenerateAction",
    "TopicRule",
]

Reads = Literal["query", "context", "both"]
OnError = Literal["pass", "abstain", "escalate"]
#: How a streamed answer is released (see guardrail.streaming).
StreamMode = Literal["hold", "release", "buffer"]

#: Error type used for cross-field checks; ``ctx["path"]`` is the key path of the culprit.
RULE_ERROR = "policy_rule"

_NAME_PATTERN = NAME_PATTERN
_NAME_HELP = "lower-case letters, digits, '_', '-' and '.', starting with a letter or digit"


def _rule_error(path: str, problem: str) -> PydanticCustomError:
    """A validation error whose key path is ``path`` (relative to the policy root)."""
    return PydanticCustomError(RULE_ERROR, "{problem}", {"path": path, "problem": problem})


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


NonBlank = Annotated[str, AfterValidator(_non_blank)]


#: Defaults of the opt-in ``embeddings: encoder`` classifier, chosen by 5-fold CV over the
#: default policy's examples with the fine-tuned verifier network's embedding
#: (``benchmarks/topic_embeddings.py --encoder-dir``): floor, embedding weight, C.
ENCODER_CONFIDENCE_FLOOR = 0.4
ENCODER_EMBEDDING_WEIGHT = 2.0
ENCODER_EMBEDDING_C = 30.0

#: What a turn the judge cannot verify in its languages gets: ``score`` decides on the score
#: as usual (the decision says the judge could not read it), ``abstain`` / ``escalate`` fail
#: closed. See :mod:`guardrail.policy.languages`.
UnverifiedLanguage = Literal["score", "abstain", "escalate"]
#: An ISO 639-1 code (``de``), or a three-letter one for languages without it.
LanguageCode = Annotated[str, Field(pattern=r"^[a-z]{2,3}$")]


class LanguageSettings(Settings):
    """Which languages the configured judge verifies (the ``languages:`` block)."""

    judge_languages: list[LanguageCode] | None = Field(
        default=None,
        description="the languages the scorer's judge verifies. null: the offline judge's own "
        "list for local judges; English only for any other judge (an LLM judge's languages "
        "must be named here)",
    )
    cross_lingual: bool | None = Field(
        default=None,
        description="whether the judge compares an answer with passages in another of its "
        "languages. null: false for the offline judge, true for any other judge",
    )


class ClassifierSettings(Settings):
    """How queries are mapped to topics (see guardrail.topics)."""

    confidence_floor: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="a topic is detected when its probability is >= this; when no topic is, "
        f"the turn gets the default topic. Default 0.5, or {ENCODER_CONFIDENCE_FLOOR} with "
        "embeddings: encoder",
    )
    default_topic: str = Field(default="general", description="must name a topic below")
    max_topics: int = Field(default=3, ge=1, le=1_000, description="most topics reported per turn")
    embeddings: Literal["none", "encoder"] = Field(
        default="none",
        description="none: TF-IDF features only; encoder: the encoder verifier network's "
        "sentence embedding of each text beside them (needs the 'encoder' extra)",
    )
    embedding_weight: float = Field(
        default=ENCODER_EMBEDDING_WEIGHT,
        gt=0.0,
        le=100.0,
        description="with embeddings: encoder, the unit embedding is scaled by this beside the "
        "TF-IDF features",
    )
    embedding_c: float = Field(
        default=ENCODER_EMBEDDING_C,
        gt=0.0,
        le=1e6,
        description="with embeddings: encoder, the inverse regularisation strength C of the "
        "per-topic logistic regressions (TF-IDF alone uses 10)",
    )
    encoder_model: str | None = Field(
        default=None,
        min_length=1,
        description="with embeddings: encoder, an encoder directory (written by "
        "scripts/train_encoder.py) instead of the packaged one; a relative path is read from "
        "the working directory",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_encoder_floor(cls, data: Any) -> Any:
        """With ``embeddings: encoder`` and no floor given, the floor chosen for that model."""
        if isinstance(data, dict) and data.get("embeddings") == "encoder":
            return {"confidence_floor": ENCODER_CONFIDENCE_FLOOR, **data}
        return data


class TopicRule(Settings):
    """One topic: how to recognise it and how strictly to treat answers about it."""

    name: str = Field(pattern=_NAME_PATTERN)
    description: str = ""
    sensitivity: Sensitivity = "normal"
    threshold: float = Field(
        ge=0.0, le=1.0, description="flagged when the response score is >= threshold"
    )
    reads: Reads = Field(
        default="query", description="which text the classifier reads: query | context | both"
    )
    keywords: list[NonBlank] = Field(
        default_factory=list,
        description=(
            "whole-word, case-insensitive phrases; a hit detects the topic; a * at the start or "
            "end of a word stands for the rest of that word (*profen, médicament*)"
        ),
    )
    context_keywords: bool = Field(
        default=True,
        description="with reads: context or both, whether a keyword in a retrieved passage "
        "detects the topic (false: only the question's keywords count; the classifier still "
        "reads the passages)",
    )
    examples: list[NonBlank] = Field(
        default_factory=list, description="classifier training queries"
    )
    cascade: bool | float | None = Field(
        default=None,
        description="metarag's cascade for answers on this topic: false = every factoid goes "
        "to the LLM (e.g. sensitive topics), true = the offline screen at the scorer's "
        "cut-off, a number in [0, 1] = the screen at this cut-off; null = the scorer's setting",
    )
    on_flag: OnFlag = Field(default_factory=OnFlag)
    stream: StreamMode | None = Field(
        default=None,
        description="for streamed answers: hold = release each sentence once it passed the "
        "per-sentence check; release = release at once, check behind and append a correction "
        "notice when the final score crosses the threshold; buffer = no streaming, the whole "
        "answer is checked first. Default: hold for sensitive topics, release otherwise",
    )
    on_error: OnError = Field(
        default="pass",
        description="when scoring fails. Default: escalate for sensitive topics with "
        "on_flag.escalate, abstain for other sensitive topics (fail closed), pass otherwise",
    )
    on_tool_calls: OnError = Field(
        default="pass",
        description="a turn that ended in tool calls and has no text for the user (nothing "
        "to verify is shown): pass (the default), abstain or escalate. Text beside tool calls "
        "is always scored",
    )
    on_unverified_language: UnverifiedLanguage | None = Field(
        default=None,
        description="when the judge cannot verify the answer in its language (or across the "
        "languages of answer and passages): score, abstain or escalate. Default, on every "
        "topic: escalate when on_flag.escalate names a queue, abstain otherwise (fail closed)",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_on_error(cls, data: Any) -> Any:
        """Fill ``on_error`` so sensitive topics fail closed unless the author says otherwise."""
        if not isinstance(data, dict) or "on_error" in data:
            return data
        on_flag = data.get("on_flag")
        escalate = (
            on_flag.get("escalate")
            if isinstance(on_flag, dict)
            else getattr(on_flag, "escalate", None)
        )
        if data.get("sensitivity") == "sensitive":
            return {**data, "on_error": "escalate" if escalate is not None else "abstain"}
        return data

    @field_validator("cascade")
    @classmethod
    def _cascade_cutoff_in_range(cls, value: bool | float | None) -> bool | float | None:
        if isinstance(value, float) and not 0.0 <= value <= 1.0:
            raise ValueError(f"a cascade cut-off must be within [0, 1], got {value}")
        return value

    @property
    def sensitive(self) -> bool:
        return self.sensitivity == "sensitive"

    @property
    def stream_mode(self) -> StreamMode:
        """How streamed answers on this topic are released (``stream``, or its default)."""
        if self.stream is not None:
            return self.stream
        return "hold" if self.sensitive else "release"

    @property
    def unverified_language(self) -> UnverifiedLanguage:
        """What a turn this topic's judge cannot read gets (``on_unverified_language``, or its
        default on every topic: fail closed, to the topic's review queue when it has one)."""
        if self.on_unverified_language is not None:
            return self.on_unverified_language
        return "escalate" if self.on_flag.escalate is not None else "abstain"

    @property
    def abstain_message(self) -> str:
        """The message shown when this topic abstains (also on a fail-closed error)."""
        return self.on_flag.abstain.message if self.on_flag.abstain else DEFAULT_ABSTAIN_MESSAGE

    def abstain_message_in(self, language: str | None) -> str:
        """:attr:`abstain_message` for a question in ``language`` (ISO 639-1; ``None``: not
        known): the policy's message in that language, else the built-in default's
        translation, else the message as written."""
        if self.on_flag.abstain is not None:
            return self.on_flag.abstain.in_language(language)
        return DEFAULT_ABSTAIN_MESSAGES.get(language or "", DEFAULT_ABSTAIN_MESSAGE)


class Policy(Settings):
    """A guardrail policy: scorer settings, classifier settings and topic rules."""

    model_config = ConfigDict(
        title="guardrail policy",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    name: str = Field(pattern=_NAME_PATTERN)
    version: int = Field(default=1, ge=1, le=1_000_000)
    description: str = ""
    #: Any registered scorer's settings (the union is rebuilt when a scorer is registered).
    scorer: ScorerWiring = Field(default_factory=lambda: _default_scorer())
    classifier: ClassifierSettings = Field(default_factory=ClassifierSettings)
    languages: LanguageSettings = Field(default_factory=LanguageSettings)
    topics: list[TopicRule] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_checks(self) -> Policy:
        seen: dict[str, int] = {}
        for i, rule in enumerate(self.topics):
            if rule.name in seen:
                raise _rule_error(
                    f"topics[{i}].name",
                    f"duplicate topic name {rule.name!r} "
                    f"(first defined at topics[{seen[rule.name]}])",
                )
            seen[rule.name] = i
            has_cascade = "cascade" in type(self.scorer).model_fields
            if rule.cascade not in (None, False) and not has_cascade:
                models = SETTINGS_MODELS.items()
                with_cascade = [m for m, s in models if "cascade" in s.model_fields]
                raise _rule_error(
                    f"topics[{i}].cascade",
                    f"only method {' or '.join(with_cascade)} has a cascade "
                    f"(the scorer is {self.scorer.method})",
                )
            if rule.on_unverified_language == "escalate" and rule.on_flag.escalate is None:
                raise _rule_error(
                    f"topics[{i}].on_unverified_language",
                    "on_unverified_language is 'escalate' but on_flag.escalate names no queue",
                )
            if rule.on_error == "escalate" and rule.on_flag.escalate is None:
                raise _rule_error(
                    f"topics[{i}].on_error",
                    "on_error is 'escalate' but on_flag.escalate names no queue",
                )
        if self.classifier.default_topic not in seen:
            raise _rule_error(
                "classifier.default_topic",
                f"default topic {self.classifier.default_topic!r} is not defined under topics "
                f"(defined: {', '.join(seen)})",
            )
        return self

    # -- derived values ---------------------------------------------------------------------

    def canonical_json(self) -> str:
        """The validated policy as sorted, compact JSON: what ``content_hash`` hashes."""
        return canonical_json(self.model_dump(mode="json"))

    @cached_property
    def content_hash(self) -> str:
        """sha256 of :meth:`canonical_json`; identical for files that differ only in layout."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def topic(self, name: str) -> TopicRule:
        """The rule named ``name``; ``KeyError`` when the policy has none."""
        for rule in self.topics:
            if rule.name == name:
                return rule
        raise KeyError(f"policy {self.name!r} has no topic {name!r}")

    def has_topic(self, name: str) -> bool:
        return any(rule.name == name for rule in self.topics)

    @property
    def default_rule(self) -> TopicRule:
        return self.topic(self.classifier.default_topic)

    # -- schema ------------------------------------------------------------------------------

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of policy files (``guardrail schema`` prints it)."""
        return cls.model_json_schema()


def _default_scorer() -> ScorerWiring:
    """A scorer block left out: the first registered method's defaults (``metarag``)."""
    return cast("ScorerWiring", next(iter(SETTINGS_MODELS.values())).model_validate({}))


def _use_registered_scorers() -> None:
    """Type ``Policy.scorer`` as the union of the scorers registered now."""
    Policy.model_fields["scorer"] = FieldInfo.from_annotated_attribute(
        settings_union(), Field(default_factory=_default_scorer)
    )
    Policy.model_rebuild(force=True)


_use_registered_scorers()
on_register(_use_registered_scorers)
