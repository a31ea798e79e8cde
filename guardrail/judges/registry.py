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
from guardrail.plugins import load_plugin, plugin_names

#: ``factory(argument, **options)``: the judge for a spec's argument (``""`` when it has none).
JudgeFactory = Callable[..., Judge]


@dataclass(frozen=True)
class JudgeEntry:
    """One registered prefix."""

    prefix: str
    factory: JudgeFactory
    #: Rejects a malformed argument with a ``ConfigError`` without building anything (no SDK
    #: import), so a policy is checked when it loads.
    check: Callable[[str], object]
    #: How the spec is written, for help texts (``""``: not listed).
    usage: str


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed spec: the registered ``kind`` (its prefix) and the ``model`` (what follows the
    colon; for ``local``: the verifier, ``""`` = the default)."""

    kind: str
    model: str = ""


ENTRY_POINT_GROUP = "guardrail.judges"
_JUDGES: dict[str, JudgeEntry] = {}


def _any_argument(argument: str) -> None:
    """The default check: every argument is accepted."""


def register_judge(
    prefix: str,
    factory: JudgeFactory,
    *,
    check: Callable[[str], object] = _any_argument,
    usage: str | None = None,
    replace: bool = False,
) -> None:
    """Make ``PREFIX`` and ``PREFIX:ARGUMENT`` specs build judges with ``factory``.

    ``check`` validates an argument without building the judge (raise ``ConfigError``);
    ``usage`` is how the spec is shown in help texts (default ``PREFIX:ARGUMENT``). A prefix is
    registered once unless ``replace`` is true.
    """
    key = prefix.strip().lower()
    if not key or ":" in key or any(c.isspace() for c in key):
        raise ConfigError(f"judge prefix {prefix!r} must be one word without ':'")
    if key in _JUDGES and not replace:
        raise ConfigError(f"judge prefix {key!r} is already registered")
    _JUDGES[key] = JudgeEntry(key, factory, check, f"{key}:ARGUMENT" if usage is None else usage)


def registered_judges() -> tuple[str, ...]:
    """Every prefix that can be used: the registered ones, then those of installed plug-ins."""
    return tuple(dict.fromkeys([*_JUDGES, *plugin_names(ENTRY_POINT_GROUP)]))


def spec_help() -> str:
    """The spec forms, for help texts."""
    return " | ".join(entry.usage for entry in _JUDGES.values() if entry.usage)


def _entry(prefix: str, spec: str) -> JudgeEntry:
    if prefix not in _JUDGES:
        load_plugin(ENTRY_POINT_GROUP, prefix)
    entry = _JUDGES.get(prefix)
    if entry is None:
        raise ConfigError(f"unknown judge spec {spec!r}; expected {spec_help()}")
    return entry


def parse_spec(spec: str) -> JudgeSpec:
    """Parse ``spec`` without building anything (no SDK import); ``ConfigError`` if malformed.

    Policy validation uses this too, so a policy accepts exactly the specs the CLI accepts.
    """
    text = (spec or "").strip()
    prefix, _, argument = text.partition(":")
    prefix = prefix.lower()
    entry = _entry(prefix, text)
    entry.check(argument)
    return JudgeSpec(prefix, argument)


def make_judge(spec: str | Judge, **options: Any) -> Judge:
    """The judge ``spec`` names (``options`` go to its factory); a judge passes through."""
    if not isinstance(spec, str):
        if options:
            raise ConfigError("options are for judge specs; a judge instance takes none")
        if not isinstance(spec, Judge):
            raise ConfigError(f"expected a judge spec or a Judge, got {type(spec).__name__}")
        return spec
    parsed = parse_spec(spec)
    return _JUDGES[parsed.kind].factory(parsed.model, **options)


# --- the built-in judges, registered like any plug-in -----------------------------------------


def _check_local(verifier: str) -> None:
    from guardrail.judges.local.judge import VERIFIERS

    if verifier and verifier not in VERIFIERS:
        raise ConfigError(
            f"judge spec 'local:{verifier}': the local verifier is one of {', '.join(VERIFIERS)}"
        )


def _local(verifier: str, **options: Any) -> Judge:
    """The offline judge; ``verifier`` ("" = the default) is the spec's suffix."""
    from guardrail.judges.local import LocalJudge

    if verifier:
        options["verifier"] = verifier
    return LocalJudge(**options)


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


register_judge(
    "local", _local, check=_check_local, usage="local | local:rules | local:trained | local:encoder"
)
register_judge("openai", _openai, check=_needs_model("openai"), usage="openai:MODEL")
register_judge(
    "openai-compatible",
    _openai_compatible,
    check=_check_openai_compatible,
    usage="openai-compatible:MODEL@URL",
)
register_judge("anthropic", _anthropic, check=_needs_model("anthropic"), usage="anthropic:MODEL")
register_judge("test", _test, check=_check_test, usage="")

#: The built-in spec forms, for help texts.
SPEC_HELP = spec_help()
