"""Run an async generator on another event loop and read it from this one, in batches.

The proxy's turns (upstream request, sentence checks, final scoring) run on the scoring
loop, as ``serve``'s checks do, so the request loop stays free for other connections; the
response body is read on the request loop. :func:`relay` connects the two with a small
buffer: the generator runs at most ``max_waiting`` items ahead of the reader (then it waits
for the reader), and the reader takes every item waiting at once, so a stream of many small
chunks costs one wake-up of each loop per batch, not per chunk. When the reader stops (the
client disconnects) the generator is closed on its own loop — for a guarded stream that
closes the upstream and records the turn.

Nothing is read ahead of what the generator has already produced: an item only enters the
buffer once the generator yielded it (for a guarded stream in ``hold`` mode, once its
sentence passed the check), so batching changes when text is sent, never which text.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from guardrail._sync import LoopThread

__all__ = ["MAX_WAITING", "loop_of", "relay"]

T = TypeVar("T")
_END = object()
#: Items the generator may produce ahead of the reader before it waits.
MAX_WAITING = 64


async def _running() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


async def loop_of(thread: LoopThread) -> asyncio.AbstractEventLoop:
    """The loop of ``thread`` (started if need be), awaited from another loop."""
    return await thread.submit(_running())


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class _Pipe(Generic[T]):
    """Items put on one loop (``there``) and taken in batches on another (``here``); at most
    ``capacity`` wait, then :meth:`put` waits for :meth:`take`. One wake-up per batch.

    No lock: a deque's append and popleft are atomic, and each side re-checks the deque after
    it has said it will wait, so an item added in between is never missed. Each side signals
    a waiter of the other at most once (``_signalled``), however many items it adds or takes.
    """

    def __init__(
        self, here: asyncio.AbstractEventLoop, there: asyncio.AbstractEventLoop, capacity: int
    ) -> None:
        self._here = here
        self._there = there
        self._capacity = capacity
        self._items: deque[Any] = deque()
        self._reader: asyncio.Future[None] | None = None  # on ``here``: waiting for items
        self._writer: asyncio.Future[None] | None = None  # on ``there``: waiting for room
        self._reader_signalled: asyncio.Future[None] | None = None  # written by put only
        self._writer_signalled: asyncio.Future[None] | None = None  # written by take only

    async def put(self, item: Any) -> None:
        """Add ``item`` (on ``there``); wait while the buffer is full."""
        self._items.append(item)
        reader = self._reader
        if reader is not None and reader is not self._reader_signalled:
            self._reader_signalled = reader
            self._here.call_soon_threadsafe(_wake, reader)
        if len(self._items) < self._capacity:
            return
        waiter = self._there.create_future()
        self._writer = waiter
        if len(self._items) >= self._capacity:  # re-checked: take() may have run meanwhile
            await waiter
        self._writer = None

    async def take(self) -> list[Any]:
        """Every waiting item (on ``here``), waiting for at least one."""
        while not self._items:
            waiter = self._here.create_future()
            self._reader = waiter
            if not self._items:  # re-checked: put() may have run meanwhile
                await waiter
            self._reader = None
        items = []
        while self._items:
            items.append(self._items.popleft())
        writer = self._writer
        if writer is not None and writer is not self._writer_signalled:
            self._writer_signalled = writer
            self._there.call_soon_threadsafe(_wake, writer)
        return items


async def relay(
    thread: LoopThread,
    make: Callable[[], AsyncGenerator[T, None]],
    *,
    max_waiting: int = MAX_WAITING,
) -> AsyncIterator[list[T]]:
    """The items of ``make()``, which runs on ``thread``'s loop, read on the current loop in
    batches (every item produced since the last read, at most ``max_waiting``)."""
    here = asyncio.get_running_loop()
    there = await loop_of(thread)
    pipe: _Pipe[T] = _Pipe(here, there, max(1, max_waiting))

    async def produce() -> None:
        source = make()
        try:
            async for item in source:
                await pipe.put(item)
            await pipe.put(_END)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            await pipe.put(_Failed(exc))
        finally:
            await source.aclose()

    producer = asyncio.run_coroutine_threadsafe(produce(), there)
    try:
        while True:
            batch = await pipe.take()
            items: list[T] = []
            for item in batch:
                if item is _END:
                    if items:
                        yield items
                    return
                if isinstance(item, _Failed):
                    if items:
                        yield items
                    raise item.exc
                items.append(item)
            yield items
    finally:
        if not producer.done():
            producer.cancel()
