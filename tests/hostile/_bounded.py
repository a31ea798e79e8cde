"""Run a call in a forked child with a hard time limit, so a quadratic parser fails the test
instead of hanging the suite for hours."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable

#: Generous on purpose: a linear pass over 1 MB takes well under a second even on a busy
#: 2-core machine, while the quadratic forms these tests pin took minutes to hours.
LIMIT_S = 8.0
SIZE = 1_000_000


def _child(fn: Callable[[], object], conn: multiprocessing.connection.Connection) -> None:
    started = time.perf_counter()
    fn()
    conn.send(time.perf_counter() - started)
    conn.close()


def seconds_within(fn: Callable[[], object], limit_s: float = LIMIT_S) -> float:
    """Seconds ``fn()`` took in a forked child; ``AssertionError`` when it ran past
    ``limit_s`` (the child is killed) or died without finishing."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(fn, child))
    proc.start()
    child.close()
    finished = parent.poll(limit_s)
    if not finished:
        proc.kill()
        proc.join()
        raise AssertionError(f"still running after {limit_s:g} s")
    try:
        elapsed = parent.recv()
    except EOFError:
        elapsed = None
    proc.join()
    assert proc.exitcode == 0, f"the child failed (exit {proc.exitcode})"
    assert isinstance(elapsed, float)
    return elapsed
