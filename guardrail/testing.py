"""Test helpers for users of guardrail (and for our own suite).

* :class:`TestJudge` — a judge that answers every task of every scorer protocol correctly,
  deciding support with a verdict rule you give (``make_judge("test")`` builds one with the
  default rule, :func:`words_in_context`); sync and async callers alike.
* :class:`ScriptedJudge` — a judge that answers from a function you write (for replies no
  correct judge would give: malformed, empty, pathological).
* ``Guard.override(scorer=..., judge=...)`` — swap a guard's parts for a ``with`` block.
* :func:`no_network` — a context manager under which any connection to a non-loopback address
  raises :class:`NetworkBlockedError`, so a test that forgot a fake transport fails loudly.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

from guardrail.judges.scripted import ScriptedJudge
from guardrail.judges.testkit import (
    TestJudge,
    VerdictRule,
    antonym,
    sentences,
    source_of,
    synonym,
    words_in_context,
)

__all__ = [
    "NetworkBlockedError",
    "ScriptedJudge",
    "TestJudge",
    "VerdictRule",
    "antonym",
    "no_network",
    "sentences",
    "source_of",
    "synonym",
    "words_in_context",
]


class NetworkBlockedError(RuntimeError):
    """A test tried to reach the network."""


def _is_loopback(host: Any) -> bool:
    if host in (None, "", "localhost") or (isinstance(host, str) and host.endswith(".localhost")):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def no_network() -> Iterator[None]:
    """Make every non-loopback connection and DNS lookup fail while the block is active."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def _check(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if isinstance(address, (str, bytes)):  # AF_UNIX paths are local
            return
        if not _is_loopback(host):
            raise NetworkBlockedError(f"network access blocked in tests: {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        _check(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_loopback(host.decode() if isinstance(host, bytes) else host):
            raise NetworkBlockedError(f"DNS lookup blocked in tests: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo
