"""One deadline for every read of a stream, with one timer for the whole stream.

``asyncio.timeout`` around each read of an upstream stream costs a timer scheduled and
cancelled per chunk — a large share of the proxy's work on a stream of many small chunks.
:class:`StreamDeadline` arms one timer when the stream is opened: when it fires during a
read, that read is cancelled and raises ``asyncio.TimeoutError`` (as ``asyncio.timeout`` would);
when it fired between reads, the next read raises at once.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["StreamDeadline"]

T = TypeVar("T")


class StreamDeadline:
    """Reads of one stream bounded by ``seconds`` from now (None: no bound)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._at = None if seconds is None else time.monotonic() + seconds
        self._timer: asyncio.TimerHandle | None = None
        self._reader: asyncio.Task[object] | None = None  # the task awaiting a read now
        self._cancelled: asyncio.Task[object] | None = None  # the read the timer cancelled
        self.expired = False

    def _arm(self) -> None:
        if self._timer is None and self._at is not None:
            loop = asyncio.get_running_loop()
            delay = max(0.0, self._at - time.monotonic())
            self._timer = loop.call_at(loop.time() + delay, self._fire)

    def _fire(self) -> None:
        self.expired = True
        if self._reader is not None:
            self._cancelled = self._reader
            self._reader.cancel()

    async def read(self, step: Awaitable[T]) -> T:
        """``await step``; ``asyncio.TimeoutError`` once the deadline has passed."""
        if self._at is None:
            return await step
        self._arm()
        if self.expired or time.monotonic() >= self._at:
            self.expired = True
            close = getattr(step, "close", None)
            if close is not None:
                close()  # never awaited: no "coroutine was never awaited" warning
            raise asyncio.TimeoutError
        task = asyncio.current_task()
        self._reader = task
        try:
            return await step
        except asyncio.CancelledError:
            if task is None or self._cancelled is not task:
                raise
            self._cancelled = None
            if sys.version_info >= (3, 11) and task.uncancel() > 0:
                raise  # cancelled from elsewhere too: that cancellation wins
            raise asyncio.TimeoutError from None
        finally:
            self._reader = None

    def close(self) -> None:
        """Stop the timer (the stream ended)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
