"""Server-sent events read from raw bytes, every line and every event bounded in size.

``httpx``'s ``aiter_lines`` keeps a whole line in memory however long it grows: an upstream
that sends ``data: {"choices": ...`` and then never a newline would fill the proxy's memory.
:func:`sse_data` splits the bytes itself (``\\n``, ``\\r\\n`` or ``\\r`` end a line, as the
SSE format says, also when a ``\\r\\n`` is split between two reads), in time linear in the
bytes read, and raises :class:`EventTooLarge` as soon as one line, or the ``data`` lines of
one event together, pass ``max_event_bytes``: nothing more is read, and the caller decides
what the cut means (the proxy scores what arrived before it, see
:class:`~guardrail.proxy.completions.ChatChunks`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["EventTooLarge", "LineSplitter", "sse_data"]

_BREAK = re.compile(rb"\r\n|\r|\n")


class EventTooLarge(Exception):
    """One line or one event of the stream is over the bound; the stream was not read on."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"an upstream event over {limit} bytes")
        self.limit = limit


class LineSplitter:
    """Complete lines out of a byte stream fed piece by piece; a line (without its line
    break) longer than ``max_line_bytes`` raises :class:`EventTooLarge`."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._partial = bytearray()
        self._after_cr = False  # the last piece ended in "\r": a "\n" next is part of it

    def feed(self, piece: bytes) -> list[bytes]:
        if self._after_cr and piece.startswith(b"\n"):
            piece = piece[1:]
        if b"\r" not in piece:  # the usual case, split without a regex
            self._after_cr = False
            return self._split_lf(piece)
        self._after_cr = piece.endswith(b"\r")
        lines: list[bytes] = []
        start = 0
        for found in _BREAK.finditer(piece):
            if self._partial:
                self._partial += piece[start : found.start()]
                line = bytes(self._partial)
                self._partial.clear()
            else:
                line = piece[start : found.start()]
            if len(line) > self.max_line_bytes:
                raise EventTooLarge(self.max_line_bytes)
            lines.append(line)
            start = found.end()
        if len(self._partial) + len(piece) - start > self.max_line_bytes:
            raise EventTooLarge(self.max_line_bytes)
        self._partial += piece[start:]
        return lines

    def _split_lf(self, piece: bytes) -> list[bytes]:
        limit = self.max_line_bytes
        if b"\n" not in piece:
            if len(self._partial) + len(piece) > limit:
                raise EventTooLarge(limit)
            self._partial += piece
            return []
        lines = piece.split(b"\n")
        last = lines.pop()
        if self._partial:
            self._partial += lines[0]
            lines[0] = bytes(self._partial)
            self._partial.clear()
        if len(lines[0]) + len(piece) > limit and (
            len(last) > limit or any(len(line) > limit for line in lines)
        ):
            raise EventTooLarge(limit)
        self._partial += last
        return lines

    def rest(self) -> bytes:
        """The last line, when the stream ended without a line break."""
        return bytes(self._partial)


async def sse_data(pieces: AsyncIterable[bytes], max_event_bytes: int) -> AsyncIterator[str]:
    """Each event's ``data`` (its ``data:`` lines joined by ``\\n``) until ``[DONE]`` or the
    end of ``pieces``; :class:`EventTooLarge` past ``max_event_bytes`` in one line or event.
    Bytes that are not UTF-8 become U+FFFD."""
    splitter = LineSplitter(max_event_bytes)
    data: list[bytes] = []
    size = 0

    async for piece in pieces:
        for line in splitter.feed(piece):
            if line.startswith(b"data:"):
                value = line[6:] if line.startswith(b"data: ") else line[5:]
                size += len(value) + 1
                if size > max_event_bytes:
                    raise EventTooLarge(max_event_bytes)
                data.append(value)
            elif not line and data:
                payload = b"\n".join(data).decode("utf-8", "replace")
                data, size = [], 0
                if payload.strip() == "[DONE]":
                    return
                yield payload
    last = splitter.rest()
    if last.startswith(b"data:"):
        data.append(last[6:] if last.startswith(b"data: ") else last[5:])
    if data:
        payload = b"\n".join(data).decode("utf-8", "replace")
        if payload.strip() != "[DONE]":
            yield payload
