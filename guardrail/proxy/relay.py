"""Run an async generator on another event loop and read it from this one.

The proxy's turns (upstream request, sentence checks, final scoring) run on the scoring
loop, as ``serve``'s checks do, so the request loop stays free for other connections; the
response body is read on the request loop. :func:`relay` connects the two with a queue of one
item, so the turn never runs ahead of the client: when the client stops reading (or
disconnects), the generator is closed on its own loop — for a guarded stream that closes the
upstream and records the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

from guardrail._sync import LoopThread

__all__ = ["loop_of", "relay"]

T = TypeVar("T")
_END = object()


async def _running() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


async def loop_of(thread: LoopThread) -> asyncio.AbstractEventLoop:
    """The loop of ``thread`` (started if need be), awaited from another loop."""
    return await thread.submit(_running())


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


async def relay(
    thread: LoopThread, make: Callable[[], AsyncGenerator[T, None]]
) -> AsyncIterator[T]:
    """The items of ``make()``, which runs on ``thread``'s loop, read on the current loop."""
    here = asyncio.get_running_loop()
    there = await loop_of(thread)
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)

    def hand_over(item: Any) -> asyncio.Future[None]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(queue.put(item), here))

    async def produce() -> None:
        source = make()
        try:
            async for item in source:
                await hand_over(item)
            await hand_over(_END)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            await hand_over(_Failed(exc))
        finally:
            await source.aclose()

    producer = asyncio.run_coroutine_threadsafe(produce(), there)
    try:
        while True:
            item = await queue.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.exc
            yield item
    finally:
        if not producer.done():
            producer.cancel()
