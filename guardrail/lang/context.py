"""The language the offline judge is reading now, as a context variable.

The offline judge sets it around each request (:func:`reading`) from the request's own text;
the value reader and the lexicon read it (:func:`current_language`) instead of taking a
language argument through every call. A context variable reaches every call made inside the
block, in threads and tasks alike, and nothing outside it; the default is English.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

_CURRENT: ContextVar[str] = ContextVar("guardrail_reading_language", default="en")


def current_language() -> str:
    """The language being read (``"en"`` outside any :func:`reading` block)."""
    return _CURRENT.get()


@contextmanager
def reading(code: str) -> Iterator[None]:
    """Read in language ``code`` for the duration of the block."""
    token = _CURRENT.set(code)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def set_language(code: str) -> Token[str]:
    """Read in ``code`` until :func:`reset_language` is given the returned token (the cheap
    form of :func:`reading`, for a judge's hot path)."""
    return _CURRENT.set(code)


def reset_language(token: Token[str]) -> None:
    """Undo the :func:`set_language` that returned ``token``."""
    _CURRENT.reset(token)
