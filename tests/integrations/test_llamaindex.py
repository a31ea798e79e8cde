"""GuardedQueryEngine on a real LlamaIndex pipeline: MockLLM, MockEmbedding, VectorStoreIndex."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.tools import QueryEngineTool

from guardrail.integrations.llamaindex import GuardedQueryEngine

from .conftest import DOCUMENTS, QUESTION


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    return VectorStoreIndex.from_documents(
        [Document(text=t) for t in DOCUMENTS],
        embed_model=MockEmbedding(embed_dim=8),
        transformations=[SentenceSplitter(chunk_size=256, chunk_overlap=0)],
    )


def engine(index: VectorStoreIndex, **kwargs: object):  # type: ignore[no-untyped-def]
    """MockLLM echoes its prompt: an answer carrying the prompt template's own words, which no
    retrieved passage supports."""
    return index.as_query_engine(llm=MockLLM(), similarity_top_k=3, **kwargs)


def test_an_unsupported_answer_escalates_with_the_source_nodes(index, guard, queue):
    response = GuardedQueryEngine(engine(index), guard).query(QUESTION)
    assert isinstance(response, Response)
    meta = response.metadata["guardrail"]
    assert meta["action"] == "escalate" and meta["queue"] == "clinical-review"
    assert str(response) == "A clinician will check this answer."
    sources = [n.node.get_content() for n in response.source_nodes]
    assert sorted(sources) == sorted(DOCUMENTS)
    case = queue.get(meta["audit_id"]).case
    assert sorted(case.contexts) == sorted(DOCUMENTS)  # the retrieved passages reach the reviewer
    assert case.answer == meta["original_answer"] and QUESTION in case.answer  # the echo


def test_async_query(index, guard, queue):
    response = asyncio.run(GuardedQueryEngine(engine(index), guard).aquery(QUESTION))
    meta = response.metadata["guardrail"]
    assert meta["action"] == "escalate"
    assert queue.get(meta["audit_id"]).case.contexts


def test_a_general_question_is_flagged_but_not_escalated(index, guard, queue):
    response = GuardedQueryEngine(engine(index), guard).query("When does the office open?")
    meta = response.metadata["guardrail"]
    assert meta["topic"] == "general" and meta["flagged"] is True
    assert meta["escalated"] is False and queue.counts() == {}
    assert str(response) == meta["original_answer"]  # no action configured: the answer stands


def test_a_supported_answer_passes(index, queue):
    """An engine whose answer is a retrieved passage verbatim: the guard lets it through."""
    from llama_index.core.query_engine import CustomQueryEngine

    from guardrail.actions.escalate import Escalator
    from guardrail.guard import Guard
    from guardrail.judges import ScriptedJudge
    from guardrail.policy import parse_policy
    from guardrail.telemetry import Telemetry

    from .conftest import POLICY, exact_match

    retriever = index.as_retriever(similarity_top_k=3)

    class Extractive(CustomQueryEngine):
        def custom_query(self, query_str: str) -> Response:
            nodes = retriever.retrieve(query_str)
            best = next(n for n in nodes if "Paracetamol" in n.node.get_content())
            return Response(response=best.node.get_content(), source_nodes=nodes)

    guard = Guard(parse_policy(POLICY), judge=ScriptedJudge(exact_match),
                  escalator=Escalator(default=queue), telemetry=Telemetry.off())  # fmt: skip
    with guard:
        response = GuardedQueryEngine(Extractive(), guard).query(QUESTION)
    meta = response.metadata["guardrail"]
    assert meta["action"] == "pass" and meta["score"] == 0.0
    assert "Paracetamol" in str(response)


def test_streaming_engines_are_drained_then_guarded(index, guard):
    response = GuardedQueryEngine(engine(index, streaming=True), guard).query(QUESTION)
    assert isinstance(response, Response)
    assert response.metadata["guardrail"]["action"] == "escalate"


def test_it_is_a_query_engine_llamaindex_tools_accept(index, guard):
    tool = QueryEngineTool.from_defaults(
        GuardedQueryEngine(engine(index), guard), name="clinic", description="clinic answers"
    )
    output = tool.call(QUESTION)
    assert output.raw_output.metadata["guardrail"]["action"] == "escalate"
