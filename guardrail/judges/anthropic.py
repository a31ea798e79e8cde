"""A judge on the Anthropic Messages API, through the official ``anthropic`` SDK.

The request carries no ``temperature``: SDK 2.x speaks API version 2026-10-21, which rejects
sampling parameters (temperature, top_p, top_k) with HTTP 400 even at their defaults, and the
SDK's ``messages.create`` no longer accepts them. ``JudgeRequest.temperature`` is therefore
ignored here; the judge prompts ask for a fixed answer format instead.

The turn's shared block (the instructions and the retrieved context, which every verify call
of a turn repeats) is sent as its own text block with ``cache_control``; usage reports what
was read from the cache (``cache_read_input_tokens``).

Structured output: a request that carries a reply schema (:attr:`JudgeRequest.schema`) is
sent with one tool whose ``input_schema`` is that schema and ``tool_choice`` forcing it (unless
``structured_output="off"``); the tool call's input, serialised as JSON, is the reply text.

As in :mod:`guardrail.judges.openai`, the SDK client is built on the first call (it resolves
credentials from the environment and the Anthropic config directory) with ``max_retries=0``,
leaving retries and timeouts to :class:`~guardrail.judges.runner.JudgeRunner`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

import anthropic
from anthropic.types import Message, MessageParam, TextBlock, TextBlockParam, ToolUseBlock

from guardrail.exceptions import ConfigError, JudgeRequestError
from guardrail.judges import _sdk
from guardrail.judges.base import JudgeRequest, JudgeResponse

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

__all__ = ["AnthropicJudge"]

_KEY_ENV = "ANTHROPIC_API_KEY"
_TOOL = "reply"


class AnthropicJudge(_sdk.SDKJudge[anthropic.AsyncAnthropic]):
    """Answers judge requests with a Claude model.

    ``client`` is an ``anthropic.AsyncAnthropic`` you built yourself (used as is; give it
    ``max_retries=0``). Otherwise ``api_key``, ``base_url`` and ``http_client`` (an
    ``httpx2.AsyncClient``) configure the client built on first use; unset values fall back to
    the SDK's own resolution (``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN``, profiles,
    ``ANTHROPIC_BASE_URL``).
    """

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.AsyncAnthropic | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 512,
        name: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
        structured_output: Literal["auto", "off"] = "auto",
    ) -> None:
        if structured_output not in ("auto", "off"):
            raise ConfigError(f"AnthropicJudge: unknown structured_output {structured_output!r}")
        self.structured_output = structured_output
        super().__init__(
            model,
            client=client,
            api_key=api_key,
            base_url=base_url,
            max_tokens=max_tokens,
            http_client=http_client,
        )
        self._name = name or f"anthropic:{self.model}"

    def _build_client(self) -> anthropic.AsyncAnthropic:
        try:
            client = anthropic.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=0,
                http_client=self._http_client or anthropic.DefaultAsyncHttpxClient(),
            )
        except anthropic.AnthropicError as exc:  # e.g. a broken profile in the config dir
            raise JudgeRequestError(f"{self.name}: cannot load credentials: {exc}") from exc
        if client.api_key is None and client.auth_token is None and client.credentials is None:
            # The SDK would only fail at send time, with a TypeError.
            raise JudgeRequestError(f"{self.name}: no API key: set {_KEY_ENV} or use --judge local")
        return client

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send one message; translate SDK failures into guardrail errors."""
        client = self._client.get()
        messages: list[MessageParam] = [{"role": "user", "content": _content(request)}]
        tools: dict[str, Any] = {}
        if request.schema is not None and self.structured_output == "auto":
            tools = {
                "tools": [
                    {
                        "name": _TOOL,
                        "description": "Give your reply in the required shape.",
                        "input_schema": dict(request.schema),
                    }
                ],
                "tool_choice": {"type": "tool", "name": _TOOL},
            }
        with _sdk.translate_errors(anthropic, self.name, key_env=_KEY_ENV):
            message = await client.messages.create(
                model=self.model,
                max_tokens=request.max_tokens or self.max_tokens,
                messages=messages,
                system=request.system if request.system else anthropic.omit,
                stop_sequences=list(request.stop) if request.stop else anthropic.omit,
                **tools,
            )
        return self._parse(message, str(client.base_url))

    def _parse(self, message: object, base_url: str) -> JudgeResponse:
        if not isinstance(message, Message) or message.content is None:
            raise _sdk.wrong_shape_error(self.name, "a message", base_url)
        # The forced tool's input is the structured reply; otherwise the text blocks are the
        # answer (thinking and other blocks are not).
        tool = next(
            (b for b in message.content if isinstance(b, ToolUseBlock) and b.name == _TOOL), None
        )
        if tool is not None:
            text = json.dumps(tool.input, ensure_ascii=False)
        else:
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        usage = message.usage
        prompt_tokens = 0
        if usage is not None:
            # input_tokens excludes tokens written to or read from the prompt cache.
            prompt_tokens = (
                (usage.input_tokens or 0)
                + (usage.cache_creation_input_tokens or 0)
                + (usage.cache_read_input_tokens or 0)
            )
        return JudgeResponse(
            text=text,
            model=message.model or self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=(usage.output_tokens or 0) if usage is not None else 0,
            cached_prompt_tokens=(
                (usage.cache_read_input_tokens or 0) if usage is not None else None
            ),
        )


def _content(request: JudgeRequest) -> str | list[TextBlockParam]:
    """The user message: the shared block marked for prompt caching, then the varying part.

    ``cache_control`` makes the API cache the prefix up to and including that block (the
    system message and the turn's instructions and context), so the turn's other calls read
    it from the cache.
    """
    cut = request.shared_prefix
    if cut <= 0 or cut >= len(request.prompt):
        return request.prompt
    return [
        {"type": "text", "text": request.prompt[:cut], "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": request.prompt[cut:]},
    ]
