"""LlamaIndex: a query engine that guards another engine's responses against their sources.

::

    engine = index.as_query_engine(llm=llm)
    guarded = GuardedQueryEngine(engine, guard)
    response = guarded.query("Can pregnant women take ibuprofen?")
    str(response)                          # the text to show
    response.metadata["guardrail"]         # the decision: action, score, audit_id, ...
    response.source_nodes                  # the retrieved nodes, as the inner engine gave them

The contexts are the text of the response's source nodes. ``GuardedQueryEngine`` is a
``BaseQueryEngine``, so it works wherever LlamaIndex takes one (``QueryEngineTool``, routers).
A streaming inner engine is drained first: the guard checks whole answers. Requires the
``llamaindex`` extra (``llama-index-core``).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from guardrail.exceptions import ConfigError
from guardrail.guard import Guard
from guardrail.integrations._metadata import METADATA_KEY, decision_metadata
from guardrail.models import GuardResult

__all__ = ["GuardedQueryEngine"]


class GuardedQueryEngine(BaseQueryEngine):
    """Query ``engine``, then check its answer with ``guard``; a :class:`Response` comes back."""

    def __init__(self, engine: BaseQueryEngine, guard: Guard) -> None:
        super().__init__(callback_manager=engine.callback_manager)
        self.engine = engine
        self.guard = guard

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"engine": self.engine}

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        response = self.engine.query(query_bundle)
        if isinstance(response, StreamingResponse):
            response = response.get_response()
        answer, nodes = _split(response)
        result = self.guard.check(query_bundle.query_str, answer, _texts(nodes))
        return _guarded(response, nodes, result)

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        response = await self.engine.aquery(query_bundle)
        if isinstance(response, AsyncStreamingResponse):
            response = await response.get_response()
        elif isinstance(response, StreamingResponse):
            response = response.get_response()
        answer, nodes = _split(response)
        result = await self.guard.acheck(query_bundle.query_str, answer, _texts(nodes))
        return _guarded(response, nodes, result)


def _split(response: Any) -> tuple[str, list[NodeWithScore]]:
    text = getattr(response, "response", None)
    if text is None:
        raise ConfigError(
            f"the query engine returned a {type(response).__name__} with no answer text"
        )
    answer = text if isinstance(text, str) else str(text)
    return answer, list(getattr(response, "source_nodes", None) or [])


def _texts(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]


def _guarded(response: Any, nodes: list[NodeWithScore], result: GuardResult) -> Response:
    metadata = dict(getattr(response, "metadata", None) or {})
    metadata[METADATA_KEY] = decision_metadata(result)
    return Response(response=result.answer, source_nodes=nodes, metadata=metadata)
