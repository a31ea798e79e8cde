"""The blocking face of a guarded stream: a plain iterator for code without an event loop.

The turn runs on the guard's own event loop (the background thread ``Guard.check`` uses), one
released piece per ``next()``; a blocking upstream (a generator, the SDK's sync stream) is
read in a worker thread there, so many threads may stream at once.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator
from typing import Any

from guardrail._sync import LoopThread
from guardrail.models import GuardResult
from guardrail.policy.schema import StreamMode
from guardrail.streaming.turn import AsyncGuardedStream

__all__ = ["GuardedStream"]


async def _next(stream: AsyncGuardedStream) -> str | None:
    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return None


async def _close(stream: AsyncGuardedStream) -> None:
    await stream.aclose()


def _close_later(stream: AsyncGuardedStream, loop: LoopThread) -> None:
    """A stream dropped unfinished still closes its upstream and records its turn."""
    running = loop.loop
    if running is not None and running.is_running():
        asyncio.run_coroutine_threadsafe(_close(stream), running)


class GuardedStream:
    """An iterator of the text to show; ``result`` holds the turn's outcome once it ended.

    Use it in a ``with`` block, or call :meth:`close`, to stop early: the upstream is closed
    and the turn is still scored and recorded.
    """

    def __init__(self, stream: AsyncGuardedStream, loop: LoopThread) -> None:
        self._stream = stream
        self._loop = loop
        self._done = False
        self._finalizer = weakref.finalize(self, _close_later, stream, loop)

    @property
    def result(self) -> GuardResult | None:
        return self._stream.result

    @property
    def mode(self) -> StreamMode | None:
        return self._stream.mode

    @property
    def audit_id(self) -> str:
        return self._stream.audit_id

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._done:
            raise StopIteration
        piece = self._loop.run(_next(self._stream))
        if piece is None:
            self._done = True
            self._finalizer.detach()
            raise StopIteration
        return piece

    def close(self) -> None:
        """Stop reading: close the upstream, finish and record the turn (waits for it)."""
        if self._finalizer.detach() is not None:
            self._done = True
            self._loop.run(_close(self._stream))

    def __enter__(self) -> GuardedStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
