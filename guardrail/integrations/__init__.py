"""Adapters for RAG frameworks: each wraps a framework's own pipeline around a
:class:`~guardrail.guard.Guard`, and imports its framework only when the adapter's module is
imported.

* :mod:`guardrail.integrations.langchain` — :class:`GuardedChain`, a LangChain ``Runnable``
  (extra ``langchain``);
* :mod:`guardrail.integrations.llamaindex` — :class:`GuardedQueryEngine`, a LlamaIndex query
  engine (extra ``llamaindex``).
"""
