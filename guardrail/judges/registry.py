"""Build a judge from a spec string, as used by the CLI and policy files.

=========================  ===============================================================
spec                       judge
=========================  ===============================================================
``local``                  the offline judge (no network, no key) — the default
``local:rules``,           the offline judge with its rule-based or trained verifier
``local:trained``
``openai:MODEL``           OpenAI via the official SDK; ``OPENAI_BASE_URL`` or
                           ``base_url=`` points it at any OpenAI-compatible server
                           (vLLM, Ollama, LM Studio)
``openai-compatible:MODEL@URL``  same backend, base URL given inline (no key needed)
``anthropic:MODEL``        Anthropic via the official SDK
=========================  ===============================================================

SDK modules are imported only when their spec is asked for.
"""

from __future__ import annotations

from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge

SPEC_HELP = (
    "local | local:rules | local:trained | openai:MODEL | openai-compatible:MODEL@URL | "
    "anthropic:MODEL"
)


def make_judge(spec: str, **options: Any) -> Judge:
    """Return the judge named by ``spec``; ``options`` go to the backend's constructor."""
    spec = (spec or "").strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind in ("local", "offline"):
        from guardrail.judges.local import LocalJudge
        from guardrail.judges.local.judge import VERIFIERS

        if not rest:
            return LocalJudge(**options)
        if rest in VERIFIERS:
            return LocalJudge(verifier=rest, **options)
        raise ConfigError(
            f"judge spec {spec!r}: the local verifier is one of {', '.join(VERIFIERS)}"
        )
    if kind == "openai" and rest:
        from guardrail.judges.openai import OpenAIJudge

        return OpenAIJudge(model=rest, **options)
    if kind == "openai-compatible" and rest:
        model, at, url = rest.rpartition("@")
        if not at or not model or not url:
            raise ConfigError(f"judge spec {spec!r}: expected openai-compatible:MODEL@URL")
        from guardrail.judges.openai import OpenAIJudge

        options.setdefault("api_key", "not-needed")
        return OpenAIJudge(model=model, base_url=url, **options)
    if kind == "anthropic" and rest:
        from guardrail.judges.anthropic import AnthropicJudge

        return AnthropicJudge(model=rest, **options)
    raise ConfigError(f"unknown judge spec {spec!r}; expected {SPEC_HELP}")
