"""LangChain: a ``Runnable`` that guards a RAG chain's answer against the documents it retrieved.

::

    rag = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm
    guarded = GuardedChain(rag | StrOutputParser(), guard)
    message = guarded.invoke("Can pregnant women take ibuprofen?")
    message.content                              # the text to show
    message.response_metadata["guardrail"]       # the decision: action, score, audit_id, ...

The contexts are the documents the chain's retrievers returned during the call (seen through
LangChain's callbacks, so the chain needs no change), or, when the chain returns a mapping,
the documents under its ``"context"`` key. The chain's output may be a string or a message
(the result is then an ``AIMessage``) or a mapping holding the answer under ``"answer"`` (the
result is the same mapping with the guarded answer and a ``"guardrail"`` entry). The question
is the input itself, or the input's ``"question"`` entry.

Streaming yields the guarded answer as one chunk once the whole answer has been checked.
Requires the ``langchain`` extra (``langchain-core``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, cast

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config

from guardrail.exceptions import ConfigError
from guardrail.guard import Guard
from guardrail.integrations._metadata import METADATA_KEY, decision_metadata
from guardrail.models import GuardResult

__all__ = ["GuardedChain"]


class _Retrieved(BaseCallbackHandler):
    """Collects the documents every retriever in the run returned."""

    run_inline = True

    def __init__(self) -> None:
        self.documents: list[Document] = []

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        self.documents.extend(documents)


class GuardedChain(Runnable[Any, Any]):
    """Run ``chain``, then check its answer with ``guard`` (sync, async, streaming, batch)."""

    def __init__(
        self,
        chain: Runnable[Any, Any],
        guard: Guard,
        *,
        question_key: str = "question",
        answer_key: str = "answer",
        context_key: str = "context",
    ) -> None:
        self.chain = chain
        self.guard = guard
        self.question_key = question_key
        self.answer_key = answer_key
        self.context_key = context_key

    # -- sync / async -------------------------------------------------------------------------

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        question = self._question(input)
        retrieved = _Retrieved()
        output = self.chain.invoke(input, _with_handler(config, retrieved), **kwargs)
        answer, contexts = self._split(output, retrieved)
        return self._result(output, self.guard.check(question, answer, contexts))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        question = self._question(input)
        retrieved = _Retrieved()
        output = await self.chain.ainvoke(input, _with_handler(config, retrieved), **kwargs)
        answer, contexts = self._split(output, retrieved)
        return self._result(output, await self.guard.acheck(question, answer, contexts))

    # -- streaming: the one place that decides what a guarded stream yields ------------------

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any | None
    ) -> Iterator[Any]:
        """The guarded answer as one chunk: the guard checks whole answers."""
        yield _as_chunk(self.invoke(input, config, **kwargs))

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any | None
    ) -> AsyncIterator[Any]:
        yield _as_chunk(await self.ainvoke(input, config, **kwargs))

    # -- shapes ------------------------------------------------------------------------------

    def _question(self, input: Any) -> str:
        value = input.get(self.question_key) if isinstance(input, Mapping) else input
        if not isinstance(value, str):
            raise ConfigError(
                f"GuardedChain needs the question: a string input, or a mapping with a string "
                f"under {self.question_key!r}; got {type(input).__name__}"
            )
        return value

    def _split(self, output: Any, retrieved: _Retrieved) -> tuple[str, list[Any]]:
        contexts: list[Any] = retrieved.documents
        answer = output
        if isinstance(output, Mapping):
            answer = output.get(self.answer_key)
            given = output.get(self.context_key)
            if isinstance(given, list | tuple | str):
                contexts = list(given) if not isinstance(given, str) else [given]
        elif isinstance(output, BaseMessage):
            parts = [output.content] if isinstance(output.content, str) else output.content
            answer = "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in parts)
        if not isinstance(answer, str):
            raise ConfigError(
                f"the chain must return a string, a message or a mapping with a string under "
                f"{self.answer_key!r}; got {type(output).__name__}"
            )
        return answer, contexts

    def _result(self, output: Any, result: GuardResult) -> Any:
        metadata = decision_metadata(result)
        if isinstance(output, Mapping):
            return {**output, self.answer_key: result.answer, METADATA_KEY: metadata}
        previous = output.response_metadata if isinstance(output, BaseMessage) else {}
        return AIMessage(
            content=result.answer, response_metadata={**previous, METADATA_KEY: metadata}
        )


def _as_chunk(value: Any) -> Any:
    if isinstance(value, AIMessage):
        return AIMessageChunk(content=value.content, response_metadata=value.response_metadata)
    return value


def _with_handler(config: RunnableConfig | None, handler: BaseCallbackHandler) -> RunnableConfig:
    """``config`` with ``handler`` added to its callbacks (a list or a manager)."""
    config = ensure_config(config)
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        return cast("RunnableConfig", {**config, "callbacks": manager})
    return cast("RunnableConfig", {**config, "callbacks": [*(callbacks or []), handler]})
