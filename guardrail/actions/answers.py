"""The answer-function contract: what a wrapped chatbot may return.

An answer function takes the question (plus any arguments of yours) and returns the answer
and the passages it retrieved, in any of these shapes:

* a tuple ``(answer, contexts)``;
* a dict ``{"answer": ..., "contexts": [...]}`` (``"context"`` also accepted);
* an object with ``.answer`` and ``.contexts`` (or ``.context``) attributes.

``contexts`` may be one string, a list of strings, or a list of documents: dicts with
``"page_content"``, ``"text"`` or ``"content"``, or objects with such an attribute (LangChain
``Document`` works as is).

**Regeneration**: if the function accepts a keyword argument ``guardrail_instruction`` (or
``**kwargs``), the guard may call it again with a stricter instruction to follow; functions
without it are never regenerated (the decision says so).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from guardrail.exceptions import ConfigError

#: Documentation alias: a tuple, a mapping, or an object with .answer and .contexts.
AnswerLike = Any

_TEXT_KEYS = ("page_content", "text", "content")


def _passage(item: Any, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        for key in _TEXT_KEYS:
            if isinstance(item.get(key), str):
                return str(item[key])
    for key in _TEXT_KEYS:
        value = getattr(item, key, None)
        if isinstance(value, str):
            return value
    raise ConfigError(
        f"context item {index} is a {type(item).__name__}; expected a string or a document "
        f"with one of {', '.join(_TEXT_KEYS)}"
    )


def normalize_contexts(contexts: Any) -> list[str]:
    """Coerce the supported context shapes into a list of passage strings."""
    if contexts is None:
        return []
    if isinstance(contexts, str):
        return [contexts]
    if isinstance(contexts, Mapping) or not hasattr(contexts, "__iter__"):
        return [_passage(contexts, 0)]
    return [_passage(item, i) for i, item in enumerate(contexts)]


def normalize_answer(result: Any) -> tuple[str, list[str]]:
    """Split an answer function's return value into ``(answer, contexts)``."""
    if isinstance(result, tuple) and len(result) == 2:
        answer, contexts = result
    elif isinstance(result, Mapping) and "answer" in result:
        answer = result["answer"]
        contexts = result.get("contexts", result.get("context"))
    elif hasattr(result, "answer") and (hasattr(result, "contexts") or hasattr(result, "context")):
        answer = result.answer
        contexts = getattr(result, "contexts", None)
        if contexts is None:
            contexts = getattr(result, "context", None)
    else:
        raise ConfigError(
            f"the answer function returned a {type(result).__name__}; it must return "
            "(answer, contexts), {'answer': ..., 'contexts': [...]}, or an object with "
            ".answer and .contexts"
        )
    if not isinstance(answer, str):
        raise ConfigError(f"the answer must be a string, got {type(answer).__name__}")
    return answer, normalize_contexts(contexts)


def accepts_instruction(fn: Callable[..., Any]) -> bool:
    """True when ``fn`` can take ``guardrail_instruction=...`` (so it can be regenerated)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.name == "guardrail_instruction" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params
    )
