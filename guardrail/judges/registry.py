"""Judges by name: a spec string such as ``openai:gpt-4.1-mini`` names a registered factory.

=================================  ==========================================================
spec                               judge
=================================  ==========================================================
``local``                          the offline judge (no network, no key) — the default
``local:rules``,                   the offline judge with its rule-based, trained (lexical) or
``local:trained``,                 fine-tuned encoder verifier (``local:encoder`` needs the
``local:encoder``                  ``encoder`` extra: onnxruntime, tokenizers)
``openai:MODEL``                   OpenAI via the official SDK; ``OPENAI_BASE_URL`` or
                                   ``base_url=`` points it at any OpenAI-compatible server
                                   (vLLM, Ollama, LM Studio)
``openai-compatible:MODEL@URL``    same backend, base URL given inline (no key needed)
``anthropic:MODEL``                Anthropic via the official SDK
``test``                           :class:`~guardrail.testing.TestJudge`: answers every task
                                   offline from a word-overlap rule (for tests)
=================================  ==========================================================

A spec is ``PREFIX`` or ``PREFIX:ARGUMENT``. Each prefix has one factory, registered with
:func:`register_judge` — the built-ins above exactly like a plug-in — and called as
``factory(argument, **options)``. SDK modules are imported only when their spec is asked for.
Packages can also provide prefixes through the ``guardrail.judges`` entry-point group (the
entry point's name is the prefix; its module is imported the first time that prefix is used
and must call :func:`register_judge`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge
from guardrail.lang import OFFLINE_JUDGE_LANGUAGES
from guardrail.registry import Capabilities, Registry, capabilities_of

__all__ = [
    "Capabilities",
    "JudgeEntry",
    "JudgeSpec",
    "judge_capabilities",
    "make_judge",
    "parse_spec",
    "register_judge",
    "registered_judges",
    "scorer_is_offline",
    "spec_capabilities",
    "spec_help",
]

#: ``factory(argument, **options)``: the judge for a spec's argument (``""`` when it has none).
JudgeFactory = Callable[..., Judge]


@dataclass(frozen=True)
class JudgeEntry:
    """One registered prefix's factory and argument check."""

    factory: JudgeFactory
    #: Rejects a malformed argument with a ``ConfigError`` without building anything (no SDK
    #: import), so a policy is checked when it loads.
    check: Callable[[str], object]


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed spec: the registered ``kind`` (its prefix) and the ``model`` (what follows the
    colon; for ``local``: the verifier, ``""`` = the default)."""

    kind: str
    model: str = ""


ENTRY_POINT_GROUP = "guardrail.judges"
JUDGES: Registry[JudgeEntry] = Registry("judge prefix", ENTRY_POINT_GROUP)


def _any_argument(argument: str) -> None:
    """The default check: every argument is accepted."""


def register_judge(
    prefix: str,
    factory: JudgeFactory,
    *,
    check: Callable[[str], object] = _any_argument,
    usage: str | None = None,
    capabilities: Capabilities | None = None,
    replace: bool = False,
) -> None:
    """Make ``PREFIX`` and ``PREFIX:ARGUMENT`` specs build judges with ``factory``.

    ``check`` validates an argument without building the judge (raise ``ConfigError``);
    ``usage`` is how the spec is shown in help texts (default ``PREFIX:ARGUMENT``);
    ``capabilities`` says what its judges can do (default: online, no key, no streaming —
    e.g. ``Capabilities(offline=True)`` lets a held stream check sentences with it). A prefix
    is registered once unless ``replace`` is true.
    """
    key = prefix.strip().lower()
    if not key or ":" in key or any(c.isspace() for c in key):
        raise ConfigError(f"judge prefix {prefix!r} must be one word without ':'")
    JUDGES.register(
        key,
        JudgeEntry(factory, check),
        capabilities=capabilities or Capabilities(),
        usage=f"{key}:ARGUMENT" if usage is None else usage,
        replace=replace,
    )


def registered_judges() -> tuple[str, ...]:
    """Every prefix that can be used: the registered ones, then those of installed plug-ins."""
    return JUDGES.names()


def spec_help() -> str:
    """The spec forms, for help texts."""
    return " | ".join(entry.usage for entry in JUDGES.entries() if entry.usage)


def _prefix(spec: str) -> tuple[str, str, str]:
    text = (spec or "").strip()
    prefix, _, argument = text.partition(":")
    return text, prefix.lower(), argument


def parse_spec(spec: str) -> JudgeSpec:
    """Parse ``spec`` without building anything (no SDK import); ``ConfigError`` if malformed.

    Policy validation uses this too, so a policy accepts exactly the specs the CLI accepts.
    """
    text, prefix, argument = _prefix(spec)
    entry = JUDGES.find(prefix)
    if entry is None:
        raise ConfigError(f"unknown judge spec {text!r}; expected {spec_help()}")
    entry.value.check(argument)
    return JudgeSpec(prefix, argument)


def spec_capabilities(spec: str) -> Capabilities:
    """What the judges ``spec`` names can do (``ConfigError`` for an unknown spec)."""
    return JUDGES.entry(parse_spec(spec).kind).capabilities


def make_judge(spec: str | Judge, **options: Any) -> Judge:
    """The judge ``spec`` names (``options`` go to its factory); a judge passes through."""
    if not isinstance(spec, str):
        if options:
            raise ConfigError("options are for judge specs; a judge instance takes none")
        if not isinstance(spec, Judge):
            raise ConfigError(f"expected a judge spec or a Judge, got {type(spec).__name__}")
        return spec
    parsed = parse_spec(spec)
    return JUDGES.get(parsed.kind).factory(parsed.model, **options)


def judge_capabilities(judge: Judge) -> Capabilities:
    """What a judge *instance* can do: its ``capabilities`` attribute (a wrapper such as the
    response cache reports its inner judge's); the cautious default when it declares none."""
    return capabilities_of(judge)


def scorer_is_offline(scorer: object) -> bool:
    """Whether every judge ``scorer`` uses works offline (a scorer that does not list its
    ``judges`` is not known to be offline)."""
    judges = getattr(scorer, "judges", None)
    if not judges:
        return False
    return all(judge_capabilities(j).offline for j in judges)


# --- the built-in judges, registered like any plug-in -----------------------------------------


def _check_local(verifier: str) -> None:
    from guardrail.judges.local.verifiers import VERIFIER_REGISTRY

    if verifier and VERIFIER_REGISTRY.find(verifier) is None:
        raise ConfigError(
            f"judge spec 'local:{verifier}': the local verifier is one of "
            f"{', '.join(VERIFIER_REGISTRY.names())}"
        )


def _local(verifier: str, **options: Any) -> Judge:
    """The offline judge; ``verifier`` ("" = the default) is the spec's suffix."""
    from guardrail.judges.local import make_local_judge

    return make_local_judge(verifier, **options)


def _needs_model(prefix: str) -> Callable[[str], None]:
    def check(model: str) -> None:
        if not model:
            raise ConfigError(f"unknown judge spec {prefix + ':'!r}; expected {prefix}:MODEL")

    return check


def _openai(model: str, **options: Any) -> Judge:
    from guardrail.judges.openai import OpenAIJudge

    return OpenAIJudge(model=model, **options)


def _anthropic(model: str, **options: Any) -> Judge:
    from guardrail.judges.anthropic import AnthropicJudge

    return AnthropicJudge(model=model, **options)


def _split_at_url(argument: str) -> tuple[str, str]:
    model, at, url = argument.rpartition("@")
    if not at or not model or not url:
        raise ConfigError(
            f"unknown judge spec 'openai-compatible:{argument}'; "
            "expected openai-compatible:MODEL@URL"
        )
    return model, url


def _check_openai_compatible(argument: str) -> None:
    _split_at_url(argument)


def _openai_compatible(argument: str, **options: Any) -> Judge:
    from guardrail.judges.openai import OpenAIJudge

    model, url = _split_at_url(argument)
    options.setdefault("api_key", "not-needed")
    return OpenAIJudge(model=model, base_url=url, **options)


def _check_test(argument: str) -> None:
    if argument:
        raise ConfigError(f"judge spec 'test:{argument}': the test judge takes no argument")


def _test(argument: str, **options: Any) -> Judge:
    from guardrail.judges.testkit import TestJudge

    return TestJudge(**options)


OFFLINE = Capabilities(offline=True)
register_judge(
    "local",
    _local,
    check=_check_local,
    usage="local | local:rules | local:trained | local:encoder",
    # reads_model: ``local:NAME`` loads ``judge_model`` when verifier NAME reads a model file
    capabilities=Capabilities(
        offline=True,
        reads_model=True,
        languages=OFFLINE_JUDGE_LANGUAGES,
        cross_lingual=False,
    ),
)
register_judge(
    "openai",
    _openai,
    check=_needs_model("openai"),
    usage="openai:MODEL",
    capabilities=Capabilities(
        key_env=("OPENAI_API_KEY",),
        key_optional_with="OPENAI_BASE_URL",
        streams=True,
        chat_model=True,
    ),
)
register_judge(
    "openai-compatible",
    _openai_compatible,
    check=_check_openai_compatible,
    usage="openai-compatible:MODEL@URL",
    capabilities=Capabilities(streams=True, chat_model=True),
)
register_judge(
    "anthropic",
    _anthropic,
    check=_needs_model("anthropic"),
    usage="anthropic:MODEL",
    capabilities=Capabilities(
        key_env=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), chat_model=True
    ),
)
register_judge("test", _test, check=_check_test, usage="", capabilities=OFFLINE)

#: The built-in spec forms, for help texts.
SPEC_HELP = spec_help()
