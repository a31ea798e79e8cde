"""``run_sync``: the coroutine's result or exception, and a refusal inside a running loop."""

from __future__ import annotations

import asyncio

import pytest

from guardrail._sync import run_sync
from guardrail.exceptions import ConfigError


async def _value(x: object) -> object:
    await asyncio.sleep(0)
    return x


async def _fail() -> None:
    await asyncio.sleep(0)
    raise ValueError("boom")


def test_returns_the_coroutines_result() -> None:
    payload = {"report": list(range(5))}
    assert run_sync(_value(payload)) is payload
    assert run_sync(_value(None)) is None


def test_raises_the_coroutines_exception() -> None:
    with pytest.raises(ValueError, match="boom"):
        run_sync(_fail())


def test_refuses_inside_a_running_loop() -> None:
    async def nested() -> None:
        run_sync(_value(1))

    with pytest.raises(ConfigError, match="running event loop"):
        asyncio.run(nested())
