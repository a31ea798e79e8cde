"""``LocalJudge``: the embedded offline judge — no network, no API key, no model weights.

It answers every scorer task in the same text format the LLM prompts ask for, so the scorers
parse its replies with the same parsers they use for LLMs:

========================== ==================================== ==============================
task                       inputs                               reply
========================== ==================================== ==============================
decompose, claims          ``text``, ``question``               JSON array of factoid strings
synonym / antonym          ``factoid``, ``count``, ``question`` ``count`` lines
verify                     ``statement``, ``context``           ``YES|NO|NOT SURE. reason``
local_verify,              ``claim``, ``context``, ``hint``     ``ENTAILED|CONTRADICTED|``
global_verify                                                   ``BASELESS. reason``
========================== ==================================== ==============================

It reads ``request.inputs`` only (never the prompt), is deterministic, and caches each
context's preprocessing in a small per-instance LRU, because every verify call for one answer
sends the same context.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from guardrail.exceptions import JudgeRequestError
from guardrail.judges.base import JudgeRequest, JudgeResponse
from guardrail.judges.local.decompose import Decomposer
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.verify import (
    ContextIndex,
    Finding,
    Outcome,
    Thresholds,
    index_context,
    verify,
)

MODEL = "local-rules-v1"
_MAX_COUNT = 50
_METARAG_LABELS = {
    Outcome.SUPPORTED: "YES",
    Outcome.CONTRADICTED: "NO",
    Outcome.UNKNOWN: "NOT SURE",
}
_RT4CHART_LABELS = {
    Outcome.SUPPORTED: "ENTAILED",
    Outcome.CONTRADICTED: "CONTRADICTED",
    Outcome.UNKNOWN: "BASELESS",
}


def _text(inputs: Mapping[str, Any], key: str) -> str:
    value = inputs.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n\n".join(str(v) for v in value if v is not None)
    return str(value)


def _count(inputs: Mapping[str, Any]) -> int:
    raw = inputs.get("count", 1)
    try:
        count = int(raw)
    except (TypeError, ValueError):
        raise JudgeRequestError(f"local judge: 'count' must be an integer, got {raw!r}") from None
    return max(0, min(count, _MAX_COUNT))


class LocalJudge:
    """Rule-based judge for MetaRAG and RT4CHART tasks.

    ``support_threshold`` and ``conflict_threshold`` are the coverage (0..1) a context sentence
    needs before the verifier answers YES, or calls a polarity/number/entity clash a NO.
    ``cache_size`` bounds how many preprocessed contexts are kept.
    """

    def __init__(
        self,
        *,
        support_threshold: float = Thresholds.support,
        conflict_threshold: float = Thresholds.conflict,
        cache_size: int = 32,
    ) -> None:
        if not 0.0 <= support_threshold <= 1.0 or not 0.0 <= conflict_threshold <= 1.0:
            raise ValueError("thresholds must be within [0, 1]")
        if cache_size < 1:
            raise ValueError("cache_size must be >= 1")
        self.thresholds = Thresholds(support=support_threshold, conflict=conflict_threshold)
        self.cache_size = cache_size
        self._lexicon: Lexicon | None = None
        self._cache: OrderedDict[str, ContextIndex] = OrderedDict()

    @property
    def name(self) -> str:
        return "local"

    @property
    def lexicon(self) -> Lexicon:
        """Loaded on first use, so constructing a judge does no I/O."""
        if self._lexicon is None:
            self._lexicon = Lexicon.load()
        return self._lexicon

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        text = self.answer(request.task, request.inputs)
        return JudgeResponse(
            text=text,
            model=MODEL,
            prompt_tokens=len(request.prompt.split()),
            completion_tokens=len(text.split()),
        )

    def answer(self, task: str, inputs: Mapping[str, Any]) -> str:
        """The reply text for one task (synchronous core of :meth:`complete`)."""
        lex = self.lexicon
        if task in ("decompose", "claims"):
            factoids = Decomposer(lex).decompose(_text(inputs, "text"))
            return json.dumps(factoids, ensure_ascii=False)
        if task in ("synonym", "antonym"):
            factoid = _text(inputs, "factoid")
            count = _count(inputs)
            mutator = Mutator(lex)
            lines = (
                mutator.synonyms(factoid, count)
                if task == "synonym"
                else mutator.antonyms(factoid, count)
            )
            return "\n".join(" ".join(line.split()) for line in lines)
        if task == "verify":
            finding = self.check(_text(inputs, "statement"), self._context(inputs))
            return f"{_METARAG_LABELS[finding.outcome]}. {finding.reason}"
        if task in ("local_verify", "global_verify"):
            finding = self.check(_text(inputs, "claim"), self._context(inputs))
            return f"{_RT4CHART_LABELS[finding.outcome]}. {finding.reason}"
        raise JudgeRequestError(f"local judge: unknown task {task!r}")

    def check(self, statement: str, context: str) -> Finding:
        """Verify one statement against a context (uses the context cache)."""
        return verify(statement, self._index(context), self.lexicon, self.thresholds)

    def _context(self, inputs: Mapping[str, Any]) -> str:
        context = _text(inputs, "context")
        if not context.strip():
            context = _text(inputs, "passages")
        return context

    def _index(self, context: str) -> ContextIndex:
        key = hashlib.blake2b(context.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        index = index_context(context, self.lexicon)
        self._cache[key] = index
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return index
