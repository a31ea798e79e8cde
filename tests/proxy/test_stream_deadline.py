"""One timer bounds every read of a stream: a read still waiting at the deadline raises
``asyncio.TimeoutError``, a read after it raises at once, and a cancellation from elsewhere
stays a cancellation."""

from __future__ import annotations

import asyncio
import time

import pytest

from guardrail.proxy.deadline import StreamDeadline


def test_a_read_waiting_at_the_deadline_times_out():
    async def run() -> float:
        deadline = StreamDeadline(0.2)
        assert await deadline.read(asyncio.sleep(0, result="fast")) == "fast"
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await deadline.read(asyncio.sleep(30))
        deadline.close()
        return time.monotonic() - started

    assert asyncio.run(run()) < 5


def test_a_read_after_the_deadline_raises_at_once():
    async def run() -> None:
        deadline = StreamDeadline(0.05)
        await deadline.read(asyncio.sleep(0))
        await asyncio.sleep(0.1)  # the deadline passes between two reads
        step = asyncio.sleep(30)
        with pytest.raises(asyncio.TimeoutError):
            await deadline.read(step)
        assert deadline.expired
        deadline.close()

    asyncio.run(run())


def test_no_deadline_never_times_out_and_cancel_from_elsewhere_is_kept():
    async def run() -> None:
        assert await StreamDeadline(None).read(asyncio.sleep(0.01, result=1)) == 1
        deadline = StreamDeadline(30)
        task = asyncio.ensure_future(deadline.read(asyncio.sleep(30)))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline.close()

    asyncio.run(run())
