"""Running coroutines from blocking code: one-shot (:func:`run_sync`) or on a kept loop.

:func:`run_sync` is :func:`asyncio.run` with a clear refusal inside a running loop; it suits
one-off calls (``Scorer.score_sync``). :class:`LoopThread` keeps one event loop alive on a
daemon thread, so whatever is bound to a loop — above all the SDK judges' HTTP connection
pools — survives from one blocking call to the next (``Guard.check``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from guardrail.exceptions import ConfigError

T = TypeVar("T")


def _refuse_inside_a_loop(coro: Coroutine[Any, Any, Any]) -> None:
    """Nesting loops (``nest_asyncio``) hides deadlocks; inside async code, ``await`` instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    coro.close()
    raise ConfigError(
        "called a blocking guardrail method inside a running event loop; "
        "await the async method instead (e.g. `await guard.acheck(...)`)"
    )


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` with :func:`asyncio.run`; refuse inside a running event loop."""
    _refuse_inside_a_loop(coro)
    box: list[T] = []
    asyncio.run(_into(coro, box))
    return box[0]


async def _into(coro: Coroutine[Any, Any, T], box: list[T]) -> None:
    """Await ``coro`` and keep its result aside, so the main task finishes with ``None``.

    On Python 3.11, :func:`asyncio.run` formats the ``repr`` of its finished main task (while
    restoring the SIGINT handler), and that ``repr`` includes the task's result: for a large
    result such as a score report it costs more than a whole offline scoring run.
    """
    box.append(await coro)


class LoopThread:
    """One event loop on a daemon thread, started on first use, shared by every caller.

    :meth:`run` hands a coroutine to the loop and blocks until it finishes; any number of
    threads may call it at once (their coroutines run concurrently on the one loop). The
    caller's context variables go with the coroutine (``run_coroutine_threadsafe`` copies
    them). If the caller is interrupted (``KeyboardInterrupt``), the coroutine is cancelled.
    """

    def __init__(self, name: str = "guardrail-loop") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The running loop, or ``None`` before the first :meth:`run` and after :meth:`stop`."""
        return self._loop

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=_serve, args=(loop,), name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the kept loop and return its result (or raise its exception)."""
        _refuse_inside_a_loop(coro)
        future = asyncio.run_coroutine_threadsafe(coro, self._start())
        try:
            return future.result()
        except BaseException:
            future.cancel()  # no-op once it finished; stops it if the caller was interrupted
            raise

    async def submit(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` run on the kept loop, from another event loop (which stays free)."""
        future = asyncio.run_coroutine_threadsafe(coro, self._start())
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the loop and join its thread; a later :meth:`run` starts a fresh one."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop, self._thread = None, None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if thread is threading.current_thread():  # stopped from a coroutine on the loop itself
            return
        thread.join(timeout_s)
        if not thread.is_alive():
            loop.close()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
