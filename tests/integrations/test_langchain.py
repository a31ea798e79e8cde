"""GuardedChain on a real LangChain RAG chain: fake LLMs, an in-memory vector store."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from guardrail.integrations.langchain import GuardedChain

from .conftest import DOCUMENTS, QUESTION, SUPPORTED, UNSUPPORTED

PROMPT = "Answer from the context only.\nContext:\n{context}\nQuestion: {question}\nAnswer:"


def retriever():  # type: ignore[no-untyped-def]
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents(
        [Document(page_content=t, metadata={"n": i}) for i, t in enumerate(DOCUMENTS)]
    )
    return store.as_retriever(search_kwargs={"k": len(DOCUMENTS)})


def format_docs(docs: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in docs)


def rag_chain(answer: str):  # type: ignore[no-untyped-def]
    """The usual LCEL RAG chain, with a fake LLM that answers ``answer``."""
    llm = FakeListLLM(responses=[answer])
    return (
        {"context": retriever() | format_docs, "question": RunnablePassthrough()}
        | PromptTemplate.from_template(PROMPT)
        | llm
        | StrOutputParser()
    )


def test_a_supported_answer_passes_with_its_decision_in_the_metadata(guard):
    guarded = GuardedChain(rag_chain(SUPPORTED), guard)
    message = guarded.invoke(QUESTION)
    assert isinstance(message, AIMessage)
    meta = message.response_metadata["guardrail"]
    assert meta["action"] == "pass" and meta["flagged"] is False
    assert meta["topic"] == "pregnancy" and meta["score"] == 0.0
    assert message.content == SUPPORTED


def test_an_unsupported_answer_escalates_with_the_retrieved_documents(guard, queue):
    guarded = GuardedChain(rag_chain(UNSUPPORTED), guard)
    message = guarded.invoke(QUESTION)
    meta = message.response_metadata["guardrail"]
    assert meta["action"] == "escalate" and meta["escalated"] is True
    assert meta["queue"] == "clinical-review" and meta["score"] >= 0.3
    assert message.content == "A clinician will check this answer."
    assert meta["original_answer"] == UNSUPPORTED
    case = queue.get(meta["audit_id"]).case
    assert sorted(case.contexts) == sorted(DOCUMENTS)  # every document the retriever returned
    assert case.answer == UNSUPPORTED and case.question == QUESTION


def test_the_contexts_are_the_chains_own_documents(guard, queue):
    """Without the supporting passage among the retrieved documents, the same answer fails."""
    narrow = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    narrow.add_documents([Document(page_content=DOCUMENTS[2])])
    chain = (
        {"context": narrow.as_retriever() | format_docs, "question": RunnablePassthrough()}
        | PromptTemplate.from_template(PROMPT)
        | FakeListLLM(responses=[SUPPORTED])
        | StrOutputParser()
    )
    message = GuardedChain(chain, guard).invoke(QUESTION)
    meta = message.response_metadata["guardrail"]
    assert meta["action"] == "escalate"
    assert queue.get(meta["audit_id"]).case.contexts == [DOCUMENTS[2]]


def test_async_and_batch(guard):
    guarded = GuardedChain(rag_chain(SUPPORTED), guard)
    message = asyncio.run(guarded.ainvoke(QUESTION))
    assert message.response_metadata["guardrail"]["action"] == "pass"
    chain = rag_chain(UNSUPPORTED)
    actions = [
        m.response_metadata["guardrail"]["action"]
        for m in GuardedChain(chain, guard).batch([QUESTION, QUESTION])
    ]
    assert actions == ["escalate", "escalate"]


def test_streaming_yields_the_guarded_answer_as_one_chunk(guard):
    guarded = GuardedChain(rag_chain(UNSUPPORTED), guard)
    chunks = list(guarded.stream(QUESTION))
    assert len(chunks) == 1 and isinstance(chunks[0], AIMessageChunk)
    assert chunks[0].content == "A clinician will check this answer."
    assert chunks[0].response_metadata["guardrail"]["action"] == "escalate"

    async def collect() -> list[AIMessageChunk]:
        return [c async for c in GuardedChain(rag_chain(SUPPORTED), guard).astream(QUESTION)]

    [chunk] = asyncio.run(collect())
    assert chunk.content == SUPPORTED and chunk.response_metadata["guardrail"]["action"] == "pass"


def test_a_chat_model_chain_returning_a_mapping(guard, queue):
    """``RunnableParallel`` chains that return {"context": docs, "answer": ...} keep their shape."""
    prompt = ChatPromptTemplate.from_messages([("human", PROMPT)])
    answer = prompt | FakeListChatModel(responses=[UNSUPPORTED]) | StrOutputParser()
    chain = RunnableParallel(
        context=RunnableLambda(lambda x: x["question"]) | retriever(),
        question=RunnableLambda(lambda x: x["question"]),
    ).assign(
        answer=RunnableLambda(
            lambda x: {"context": format_docs(x["context"]), "question": x["question"]}
        )
        | answer
    )
    out = GuardedChain(chain, guard).invoke({"question": QUESTION})
    assert set(out) == {"context", "question", "answer", "guardrail"}
    assert out["answer"] == "A clinician will check this answer."
    assert out["guardrail"]["action"] == "escalate"
    assert sorted(queue.get(out["guardrail"]["audit_id"]).case.contexts) == sorted(DOCUMENTS)


def test_a_chat_model_output_message_keeps_its_metadata(guard):
    chain = (
        {"context": retriever() | format_docs, "question": RunnablePassthrough()}
        | ChatPromptTemplate.from_messages([("human", PROMPT)])
        | FakeListChatModel(responses=[SUPPORTED])
    )
    message = GuardedChain(chain, guard).invoke(QUESTION)
    assert message.content == SUPPORTED
    assert message.response_metadata["guardrail"]["action"] == "pass"


def test_a_question_it_cannot_find_is_a_clear_error(guard):
    from guardrail.exceptions import ConfigError

    with pytest.raises(ConfigError, match="'question'"):
        GuardedChain(rag_chain(SUPPORTED), guard).invoke({"query": QUESTION})
