"""A judge on the OpenAI Chat Completions API, through the official ``openai`` SDK.

The request keeps the turn's shared block (instructions, then the retrieved context) at the
start of the prompt and the varying part last, the layout a server's prefix caching (OpenAI's
automatic one, vLLM's ``--enable-prefix-caching``, llama.cpp's KV-cache reuse) can serve;
cached tokens are read from ``usage.prompt_tokens_details.cached_tokens`` when the
server reports them.

Chat Completions rather than the newer Responses API because every OpenAI-compatible server
(vLLM, Ollama, LM Studio, llama.cpp) serves it, so one backend covers hosted and local models.

Structured output: a request that carries a reply schema (:attr:`JudgeRequest.schema`) is sent
with a constraint the server understands, by ``structured_output``:

=================  ===========================================================================
``auto``           ``response_format: {type: json_schema}`` (OpenAI, vLLM, llama.cpp's own
                   server, Ollama, LM Studio); a server that rejects it (400/422, or an error
                   naming ``response_format``) is asked with ``{type: json_object, schema}``
                   (llama-cpp-python's server), then without a constraint; the first form it
                   accepts is remembered
``json_schema``    only ``response_format: {type: json_schema}``
``json_object``    only ``response_format: {type: json_object, schema: ...}``
``guided_json``    vLLM's ``guided_json`` in the request body
``off``            never a constraint; the prompt's text format only
=================  ===========================================================================

The SDK client is built on the first call, not in the constructor: building it reads
``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, and a judge must be constructible (in a policy file,
in a test) without credentials. It is built with ``max_retries=0`` because
:class:`~guardrail.judges.runner.JudgeRunner` owns retries and timeouts; SDK retries underneath
would multiply the attempts and hide them from the audit record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from guardrail.exceptions import ConfigError, JudgeError, JudgeRequestError
from guardrail.judges import _sdk
from guardrail.judges.base import JudgeRequest, JudgeResponse

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

__all__ = ["OpenAIJudge"]

_OPENAI_HOST = "api.openai.com"
_KEY_ENV = "OPENAI_API_KEY"

StructuredMode = Literal["auto", "json_schema", "json_object", "guided_json", "off"]
#: The constraint forms ``auto`` tries, in order (``None``: no constraint).
_AUTO_FORMS: tuple[str | None, ...] = ("json_schema", "json_object", None)


def _rejects_format(exc: JudgeError) -> bool:
    """True when the server refused the request's output constraint: a 400/422, or any error
    naming ``response_format`` (llama-cpp-python's server answers a 500 for a form its request
    model does not know)."""
    return exc.status_code in (400, 422) or "response_format" in str(exc)


def _constraint(form: str | None, task: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields that ask for ``schema`` in ``form``."""
    if form == "json_schema":
        spec = {"name": f"guardrail_{task}", "schema": dict(schema), "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if form == "json_object":
        return {"response_format": {"type": "json_object", "schema": dict(schema)}}
    if form == "guided_json":
        return {"extra_body": {"guided_json": dict(schema)}}
    return {}


class OpenAIJudge(_sdk.SDKJudge[openai.AsyncOpenAI]):
    """Answers judge requests with an OpenAI (or OpenAI-compatible) chat model.

    ``client`` is an ``openai.AsyncOpenAI`` you built yourself (used as is, on whatever event
    loop you call it from; give it ``max_retries=0``). Otherwise ``api_key``, ``base_url`` and
    ``http_client`` (an ``httpx2.AsyncClient``: proxies, custom CA, a fake transport in tests)
    configure the client built on first use; unset values fall back to the SDK's environment
    variables. ``extra_body`` is merged into every request body (server-specific options such
    as vLLM's ``guided_choice``). ``structured_output`` chooses how a request's reply schema
    is sent (see the module docstring). ``stream=True`` streams each reply: llama-cpp-python's
    server stops generating when a streamed request is closed (a call past its deadline),
    while it finishes a plain one first; token counts then come from the stream's usage chunk,
    or, when the server sends none, completion tokens are counted one per chunk and prompt
    tokens are reported as 0.
    """

    def __init__(
        self,
        model: str,
        *,
        client: openai.AsyncOpenAI | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 512,
        name: str | None = None,
        extra_body: dict[str, Any] | None = None,
        http_client: httpx2.AsyncClient | None = None,
        structured_output: StructuredMode = "auto",
        stream: bool = False,
    ) -> None:
        super().__init__(
            model,
            client=client,
            api_key=api_key,
            base_url=base_url,
            max_tokens=max_tokens,
            http_client=http_client,
        )
        self.extra_body = dict(extra_body) if extra_body else None
        self.stream = stream
        if structured_output not in ("auto", "json_schema", "json_object", "guided_json", "off"):
            raise ConfigError(f"OpenAIJudge: unknown structured_output {structured_output!r}")
        self.structured_output: StructuredMode = structured_output
        #: The constraint forms still to try (``auto`` drops a form the server rejected).
        self._forms: tuple[str | None, ...] = {
            "auto": _AUTO_FORMS,
            "off": (None,),
        }.get(structured_output, (structured_output,))
        compatible = self._base_url is not None or (
            client is not None and client.base_url.host != _OPENAI_HOST
        )
        self._name = name or f"{'openai-compatible' if compatible else 'openai'}:{self.model}"

    def _build_client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=0,
                http_client=self._http_client or openai.DefaultAsyncHttpxClient(),
            )
        except openai.OpenAIError as exc:
            local = " (a local server accepts any value)" if self._base_url else ""
            raise JudgeRequestError(
                f"{self.name}: no API key: set {_KEY_ENV}{local} or use --judge local"
            ) from exc

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send one chat completion; translate SDK failures into guardrail errors.

        With a reply schema and ``structured_output="auto"``, a constraint form the server
        rejects (HTTP 400/422) is dropped and the next one tried, in the same call.
        """
        if request.schema is None:
            return await self._create(request, None)
        forms = self._forms
        for index, form in enumerate(forms):
            try:
                response = await self._create(request, form)
            except JudgeError as exc:
                last = index == len(forms) - 1
                if last or self.structured_output != "auto" or not _rejects_format(exc):
                    raise
                continue
            if forms is self._forms and index:
                self._forms = forms[index:]  # remember what this server accepts
            return dataclasses.replace(response, requests=index + 1) if index else response
        raise AssertionError("unreachable: the last form's failure is raised")

    async def _create(self, request: JudgeRequest, form: str | None) -> JudgeResponse:
        client = self._client.get()
        messages: list[ChatCompletionMessageParam] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        limit = request.max_tokens or self.max_tokens
        # OpenAI deprecated max_tokens (reasoning models reject it); compatible servers may
        # know only max_tokens. Decide by where the request actually goes.
        hosted = client.base_url.host == _OPENAI_HOST
        constraint = _constraint(form, request.task, request.schema or {}) if form else {}
        extra_body = {**(self.extra_body or {}), **constraint.get("extra_body", {})} or None
        options: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": request.temperature,
            "max_completion_tokens": limit if hosted else openai.omit,
            "max_tokens": openai.omit if hosted else limit,
            "stop": list(request.stop) if request.stop else openai.omit,
            "response_format": constraint.get("response_format", openai.omit),
            "extra_body": extra_body,
        }
        with _sdk.translate_errors(openai, self.name, key_env=_KEY_ENV):
            if self.stream:
                return await self._streamed(client, options)
            completion = await client.chat.completions.create(**options)
        return self._parse(completion, str(client.base_url))

    async def _streamed(self, client: openai.AsyncOpenAI, options: dict[str, Any]) -> JudgeResponse:
        """One streamed completion, its chunks joined. The stream is closed however the call
        ends, so a cancelled call (its deadline passed) closes the connection mid-reply."""
        stream = await client.chat.completions.create(
            **options, stream=True, stream_options={"include_usage": True}
        )
        parts: list[str] = []
        pieces = 0
        model = ""
        usage = None
        try:
            async for chunk in stream:
                model = chunk.model or model
                usage = chunk.usage or usage
                for choice in chunk.choices or []:
                    if choice.delta is not None and choice.delta.content:
                        parts.append(choice.delta.content)
                        pieces += 1
        finally:
            await stream.close()
        details = usage.prompt_tokens_details if usage else None
        return JudgeResponse(
            text="".join(parts),
            model=model or self.model,
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            # without a usage chunk, one content chunk a token (llama.cpp streams token by token)
            completion_tokens=(usage.completion_tokens or 0) if usage else pieces,
            cached_prompt_tokens=details.cached_tokens if details is not None else None,
            usage_reported=usage is not None,
        )

    def _parse(self, completion: object, base_url: str) -> JudgeResponse:
        if not isinstance(completion, ChatCompletion) or completion.choices is None:
            raise _sdk.wrong_shape_error(self.name, "a chat completion", base_url)
        text = ""
        if completion.choices:
            message = completion.choices[0].message
            text = (message.content if message is not None else None) or ""
        usage = completion.usage
        details = usage.prompt_tokens_details if usage else None
        return JudgeResponse(
            text=text,
            model=completion.model or self.model,
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            completion_tokens=(usage.completion_tokens or 0) if usage else 0,
            cached_prompt_tokens=details.cached_tokens if details is not None else None,
        )
