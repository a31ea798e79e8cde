"""The judge protocol: one async method, ``complete(request) -> response``.

A judge turns a rendered prompt into text. Every scorer stage (decompose, synonym, antonym,
verify, and RT4CHART's stages) goes through this one method, and every judge — LLM backends,
the offline judge, the scripted test double — answers in the *same text format* the prompt
asks for, so one set of parsers serves them all. Structured inputs ride along in
``request.inputs`` for judges that do not read prompts (the offline judge).

Backends raise the :mod:`guardrail.exceptions` ``JudgeError`` subclasses so the runner
(:mod:`guardrail.judges.runner`) can retry what is retryable. They do no retries themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: Task names used by the MetaRAG scorer, and the ``inputs`` each request carries:
#:
#: ========== ===================================================== ===========================
#: task       inputs                                                expected reply text
#: ========== ===================================================== ===========================
#: decompose  ``text`` (the answer), ``question``                   JSON array of sentences
#: synonym    ``question``, ``factoid``, ``count``                  ``count`` lines, one each
#: antonym    ``question``, ``factoid``, ``count``                  ``count`` lines, one each
#: verify     ``statement``, ``context`` (passages joined), also    ``YES|NO|NOT SURE. reason``
#:            ``passages`` (the list)
#: ========== ===================================================== ===========================
#:
#: Other scorers add their own tasks (RT4CHART: ``claims``, ``local_verify``, ``global_verify``).
DECOMPOSE = "decompose"
SYNONYM = "synonym"
ANTONYM = "antonym"
VERIFY = "verify"
#: The cheaper protocols' tasks: every factoid's synonyms and antonyms in one call
#: (inputs ``question``, ``factoids``, ``count``; reply: a JSON object keyed by factoid number)
#: and a numbered list of statements verified in one call (inputs ``statements``, ``context``,
#: ``passages``; reply: one ``<n>. YES|NO|NOT SURE. reason`` line per statement).
MUTATE_ALL = "mutate_all"
VERIFY_BATCH = "verify_batch"
#: RT4CHART's tasks: claims of an answer chunk (inputs ``text``, ``question``; reply: a JSON
#: array), and a claim checked against the context (inputs ``claim``, ``context``, ``hint``;
#: reply: ``ENTAILED|CONTRADICTED|BASELESS. reason``), locally then globally.
CLAIMS = "claims"
LOCAL_VERIFY = "local_verify"
GLOBAL_VERIFY = "global_verify"


@dataclass(frozen=True)
class JudgeRequest:
    """What a scorer asks of a judge.

    ``task`` names the stage; ``prompt`` is the fully rendered template; ``inputs`` holds the
    values the template was rendered from (e.g. ``{"statement": ..., "context": ...}``).
    """

    task: str
    prompt: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    temperature: float = 0.0
    max_tokens: int | None = None
    system: str | None = None
    #: Strings that end the reply (at most 4: the OpenAI API's limit). Each stage sets the
    #: lines a model echoing its prompt would write next, so an echo stops early.
    stop: tuple[str, ...] = ()
    #: How many leading characters of ``prompt`` are byte-identical across the turn's calls of
    #: this stage (instructions and context): the block a backend may mark for prompt caching.
    shared_prefix: int = 0
    #: A JSON Schema (an object) the reply should follow, for judges that can constrain their
    #: output (OpenAI ``response_format``, vLLM guided JSON, llama.cpp grammars, Anthropic
    #: tool input). ``None``: plain text as the prompt asks. Judges that cannot constrain
    #: output ignore it; the scorers' parsers read both shapes.
    schema: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class JudgeResponse:
    """A judge's raw text answer and the token usage the backend reported."""

    text: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False  # answered from a response cache (guardrail.judges.cache)
    #: Prompt tokens the server read from its prompt cache, when its API reports them
    #: (OpenAI ``prompt_tokens_details.cached_tokens``, Anthropic ``cache_read_input_tokens``);
    #: ``None`` when the API does not say.
    cached_prompt_tokens: int | None = None
    #: HTTP requests this answer took: more than one when the server rejected a structured-
    #: output form and the same call was sent again in another form. Each counts as an attempt.
    requests: int = 1
    #: False when the server reported no token usage (a streamed reply without a usage chunk,
    #: as llama-cpp-python sends it): completion tokens were counted one per chunk and
    #: prompt tokens are unknown (reported as 0).
    usage_reported: bool = True


@runtime_checkable
class Judge(Protocol):
    """Anything with a ``name`` and an async ``complete``."""

    @property
    def name(self) -> str: ...

    async def complete(self, request: JudgeRequest) -> JudgeResponse: ...


@runtime_checkable
class ClosableJudge(Protocol):
    """A judge holding resources (an SDK client, a connection pool) that ``aclose`` releases."""

    async def aclose(self) -> None: ...
