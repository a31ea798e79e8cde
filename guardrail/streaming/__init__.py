"""Streamed answers, guarded: release text as it arrives, sentence by sentence once checked.

``Guard.stream(question, chunks, contexts)`` (a blocking iterator) and
``Guard.astream(...)`` (an async iterator) guard a stream of text chunks; ``Guard.wrap``
does the same for an answer function that returns one. The topic's ``stream`` setting
(``hold``, ``release`` or ``buffer``) chooses how text is released: see
:mod:`guardrail.streaming.turn`.
"""

from __future__ import annotations

from guardrail.streaming.chunks import is_stream_source, text_chunks
from guardrail.streaming.sentences import SentenceSplitter
from guardrail.streaming.sync import GuardedStream
from guardrail.streaming.turn import CORRECTION_NOTICE, UNCHECKED_NOTICE, AsyncGuardedStream

__all__ = [
    "CORRECTION_NOTICE",
    "UNCHECKED_NOTICE",
    "AsyncGuardedStream",
    "GuardedStream",
    "SentenceSplitter",
    "is_stream_source",
    "text_chunks",
]
