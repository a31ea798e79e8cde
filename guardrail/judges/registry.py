"""Build a judge from a spec string, as used by the CLI and policy files.

=========================  ===============================================================
spec                       judge
=========================  ===============================================================
``local``                  the offline judge (no network, no key) — the default
``local:rules``,           the offline judge with its rule-based, trained (lexical) or
``local:trained``,         fine-tuned encoder verifier (``local:encoder`` needs the
``local:encoder``          ``encoder`` extra: onnxruntime, tokenizers)
``openai:MODEL``           OpenAI via the official SDK; ``OPENAI_BASE_URL`` or
                           ``base_url=`` points it at any OpenAI-compatible server
                           (vLLM, Ollama, LM Studio)
``openai-compatible:MODEL@URL``  same backend, base URL given inline (no key needed)
``anthropic:MODEL``        Anthropic via the official SDK
=========================  ===============================================================

SDK modules are imported only when their spec is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge

SPEC_HELP = (
    "local | local:rules | local:trained | local:encoder | openai:MODEL | "
    "openai-compatible:MODEL@URL | anthropic:MODEL"
)


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed spec: ``kind``, the ``model`` (for ``local``: the verifier, "" = default), and
    the ``url`` of an ``openai-compatible`` server."""

    kind: Literal["local", "openai", "openai-compatible", "anthropic"]
    model: str = ""
    url: str = ""


def parse_spec(spec: str) -> JudgeSpec:
    """Parse ``spec`` without building anything (no SDK import); ``ConfigError`` if malformed.

    Policy validation uses this too, so a policy accepts exactly the specs the CLI accepts.
    """
    spec = (spec or "").strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind in ("local", "offline"):
        from guardrail.judges.local.verifiers import VERIFIERS

        if rest and rest not in VERIFIERS:
            raise ConfigError(
                f"judge spec {spec!r}: the local verifier is one of {', '.join(VERIFIERS)}"
            )
        return JudgeSpec("local", rest)
    if kind in ("openai", "anthropic") and rest:
        return JudgeSpec(kind, rest)  # type: ignore[arg-type]
    if kind == "openai-compatible" and rest:
        model, at, url = rest.rpartition("@")
        if not at or not model or not url:
            raise ConfigError(f"unknown judge spec {spec!r}; expected openai-compatible:MODEL@URL")
        return JudgeSpec("openai-compatible", model, url)
    raise ConfigError(f"unknown judge spec {spec!r}; expected {SPEC_HELP}")


def make_judge(spec: str, **options: Any) -> Judge:
    """Return the judge named by ``spec``; ``options`` go to the backend's constructor."""
    parsed = parse_spec(spec)
    if parsed.kind == "local":
        from guardrail.judges.local import make_local_judge

        return make_local_judge(parsed.model, **options)
    if parsed.kind == "anthropic":
        from guardrail.judges.anthropic import AnthropicJudge

        return AnthropicJudge(model=parsed.model, **options)
    from guardrail.judges.openai import OpenAIJudge

    if parsed.kind == "openai-compatible":
        options.setdefault("api_key", "not-needed")
        return OpenAIJudge(model=parsed.model, base_url=parsed.url, **options)
    return OpenAIJudge(model=parsed.model, **options)
