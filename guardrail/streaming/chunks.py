"""What a streamed answer may be: any source of text chunks, read as one async iterator.

Accepted sources (:func:`is_stream_source` tells them from a finished answer):

* an async iterator of strings (an ``async def`` generator);
* a sync iterator of strings (a generator) — each ``next()`` runs in a worker thread, so a
  blocking source (a socket, the SDK's sync stream) never stalls the event loop;
* the ``openai`` SDK's stream objects (``Stream`` / ``AsyncStream`` of chat-completion chunks,
  or any iterator of chunk objects): the text is ``choices[0].delta.content``; chunks without
  text (the role, the finish reason, usage) are skipped.

Only iterators count, not iterables: a string, a list or a dict is a finished answer.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, Iterator
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.logs import get_logger

__all__ = ["chunk_text", "close_source", "is_stream_source", "streamed_answer", "text_chunks"]
_log = get_logger(__name__)

_END = object()


def is_stream_source(value: Any) -> bool:
    """True for a sync or async iterator (a generator, an SDK stream), never for a ``str``."""
    if isinstance(value, (str, bytes, dict, list, tuple)):
        return False
    return hasattr(value, "__anext__") or hasattr(value, "__next__")


def chunk_text(chunk: Any) -> str:
    """The text of one chunk: a string as is, an SDK chunk's ``choices[0].delta.content``."""
    if isinstance(chunk, str):
        return chunk
    choices = getattr(chunk, "choices", None)
    if isinstance(choices, list):
        if not choices:
            return ""  # a usage-only chunk
        delta = getattr(choices[0], "delta", None)
        content = getattr(delta, "content", None)
        return content if isinstance(content, str) else ""
    raise ConfigError(
        f"a streamed answer yielded a {type(chunk).__name__}; expected text chunks (str) or "
        "chat-completion chunks with choices[0].delta.content"
    )


async def text_chunks(source: Any) -> AsyncGenerator[str, None]:
    """The non-empty text chunks of ``source`` (see the module docstring), in order."""
    if hasattr(source, "__anext__"):
        async for chunk in source:
            text = chunk_text(chunk)
            if text:
                yield text
        return
    if not hasattr(source, "__next__"):
        raise ConfigError(f"not a stream of text chunks: {type(source).__name__}")
    iterator: Iterator[Any] = source
    while True:
        chunk = await asyncio.to_thread(next, iterator, _END)
        if chunk is _END:
            return
        text = chunk_text(chunk)
        if text:
            yield text


async def close_source(source: Any) -> None:
    """Close ``source`` if it can be closed (stops the upstream: a generator, an SDK stream's
    HTTP response); errors while closing are not the caller's problem."""
    closer = getattr(source, "aclose", None) or getattr(source, "close", None)
    if closer is None:
        return
    try:
        out = closer()
        if inspect.isawaitable(out):
            await out
    except Exception as exc:
        _log.warning("closing the upstream stream failed", error=repr(exc))


def streamed_answer(result: Any) -> tuple[Any, Any] | None:
    """``(source, contexts)`` when an answer function returned a stream, else ``None``.

    The stream may be the return value itself (no contexts), or stand where the answer
    stands in any shape of :mod:`guardrail.actions.answers`: ``(stream, contexts)``,
    ``{"answer": stream, "contexts": ...}``, or an object with ``.answer`` and ``.contexts``.
    """
    if is_stream_source(result):
        return result, None
    if isinstance(result, tuple) and len(result) == 2 and is_stream_source(result[0]):
        return result[0], result[1]
    if isinstance(result, dict):
        if is_stream_source(result.get("answer")):
            return result["answer"], result.get("contexts", result.get("context"))
        return None
    answer = getattr(result, "answer", None)
    if is_stream_source(answer):
        contexts = getattr(result, "contexts", None)
        return answer, contexts if contexts is not None else getattr(result, "context", None)
    return None
