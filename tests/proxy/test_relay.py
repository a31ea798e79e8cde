"""The relay from the scoring loop to the request loop: every item arrives once and in order,
in batches of at most ``max_waiting``; a failure reaches the reader after the items before
it; a reader that stops closes the generator on its own loop."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator

import pytest

from guardrail._sync import LoopThread
from guardrail.proxy.relay import relay


@pytest.fixture
def thread():
    running = LoopThread("test-relay")
    yield running
    running.stop()


@pytest.mark.parametrize("seed", range(4))
def test_every_item_arrives_once_in_order_in_bounded_batches(thread, seed):
    rng = random.Random(seed)
    pauses = [rng.choice([0.0, 0.0, 0.0, 0.0005]) for _ in range(3_000)]

    async def produce() -> AsyncGenerator[int, None]:
        for i, pause in enumerate(pauses):
            if pause:
                await asyncio.sleep(pause)
            yield i

    async def read() -> list[list[int]]:
        batches = []
        async for batch in relay(thread, produce, max_waiting=16):
            batches.append(batch)
            if rng.random() < 0.1:
                await asyncio.sleep(0.001)
        return batches

    batches = asyncio.run(read())
    assert [i for batch in batches for i in batch] == list(range(len(pauses)))
    assert all(1 <= len(batch) <= 16 for batch in batches)
    assert len(batches) < len(pauses)  # items were batched


def test_a_failure_arrives_after_the_items_before_it(thread):
    async def produce() -> AsyncGenerator[int, None]:
        yield 1
        yield 2
        raise ValueError("upstream broke")

    async def read() -> list[int]:
        seen: list[int] = []
        with pytest.raises(ValueError, match="upstream broke"):
            async for batch in relay(thread, produce):
                seen.extend(batch)
        return seen

    assert asyncio.run(read()) == [1, 2]


def test_a_reader_that_stops_closes_the_generator(thread):
    state = {"closed": False, "made": 0}

    async def produce() -> AsyncGenerator[int, None]:
        try:
            while True:
                state["made"] += 1
                yield state["made"]
        finally:
            state["closed"] = True

    first: list[int] = []

    async def read() -> None:
        body = relay(thread, produce, max_waiting=8)
        async for batch in body:
            first.extend(batch)
            break
        await body.aclose()  # type: ignore[attr-defined]
        for _ in range(200):
            if state["closed"]:
                return
            await asyncio.sleep(0.01)

    asyncio.run(read())
    assert state["closed"]
    # it never ran far ahead of the reader: what it read, a full buffer and one in hand
    assert state["made"] <= len(first) + 8 + 1
