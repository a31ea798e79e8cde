"""The one sync entry point: run a coroutine to completion from blocking code."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from guardrail.exceptions import ConfigError

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` with :func:`asyncio.run`; refuse inside a running event loop.

    Nesting loops (``nest_asyncio``) hides deadlocks; inside async code, ``await`` the async
    method instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise ConfigError(
        "called a blocking guardrail method inside a running event loop; "
        "await the async method instead (e.g. `await scorer.score(...)`)"
    )
