"""One line of the upstream's stream is bounded: an upstream that starts an event and never
ends its line is cut at ``--max-event-bytes`` (the turn scored on what arrived, recorded, the
policy decides), instead of the proxy buffering the line until memory or the stream's time
runs out. The line splitter itself is exact about SSE line breaks and linear in the bytes.

The HTTP tests run a scripted upstream and the proxy on 127.0.0.1 (in-process servers)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from guardrail.exceptions import ConfigError
from guardrail.proxy.scripted import ScriptedReply
from guardrail.proxy.sse import EventTooLarge, LineSplitter, sse_data
from guardrail.serving.limits import UpstreamLimits
from tests.proxy.test_upstream_bounds import MODES, _proxy, _stream
from tests.streaming.conftest import records

#: A sentence, then an event whose line never ends (words streamed on without a newline).
OPEN_LINE = ScriptedReply("The library opens at ten. ", unterminated=True)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_endless_line_is_cut_at_max_event_bytes(tmp_path, mode):
    """With the default bounds: the endless line is cut at --max-event-bytes within seconds,
    not at --max-stream-seconds (300 s); the turn is scored on the text that arrived before
    it, recorded, and the client is shown only what the guard let through."""
    supported = MODES[mode][1][0] + " "  # a sentence its passage supports: released in hold
    started = time.monotonic()
    with _proxy(tmp_path, ScriptedReply(supported, unterminated=True)) as (url, audit):
        shown, summary = _stream(url, mode)
        [record] = records(audit)
    assert time.monotonic() - started < 30
    assert "--max-event-bytes" in summary["reason"], summary["reason"]
    assert record["audit_id"] == summary["audit_id"]
    assert record["answer"] == supported  # nothing of the cut line
    assert shown == record["final_answer"]


def test_the_event_bound_is_a_limit(tmp_path):
    """A smaller --max-event-bytes cuts sooner; the reason names the bound's value."""
    with _proxy(tmp_path, OPEN_LINE, max_event_bytes=5_000) as (url, audit):
        _shown, summary = _stream(url, "release")
        [record] = records(audit)
    assert "over 5000 bytes (--max-event-bytes)" in summary["reason"], summary["reason"]
    assert record["audit_id"] == summary["audit_id"]
    with pytest.raises(ConfigError):
        UpstreamLimits(max_event_bytes=10)


async def _pieces(*pieces: bytes) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def _data(*pieces: bytes, limit: int = 1_000) -> list[str]:
    async def read() -> list[str]:
        return [p async for p in sse_data(_pieces(*pieces), limit)]

    return asyncio.run(read())


def test_line_breaks_of_every_kind_and_split_between_reads():
    """LF, CRLF and CR end a line; a CRLF split between two reads is one line break; comment
    lines and other fields are skipped; an event's data lines are joined by a newline."""
    assert _data(b'data: {"a": 1}\n\ndata: 2\r\n\r\ndata: 3\r\rdata: [DONE]\n\n') == [
        '{"a": 1}',
        "2",
        "3",
    ]
    assert _data(b"data: 1\r", b"\n\r", b"\n: keep-alive\n\nid: 7\ndata:x\ndata: y\n\n") == [
        "1",
        "x\ny",
    ]
    assert _data(b"data: last") == ["last"]  # a stream that ends without its line break


def test_an_overlong_line_raises_once_past_the_bound():
    """A line (or the data lines of one event together) over the bound raises as soon as
    the bound is passed, whether or not the line ever ends."""
    with pytest.raises(EventTooLarge):
        _data(b"data: " + b"x" * 600, b"x" * 600, limit=1_000)
    with pytest.raises(EventTooLarge):
        _data(b"data: " + b"x" * 1_200 + b"\n\n", limit=1_000)
    with pytest.raises(EventTooLarge):
        _data(*[b"data: " + b"x" * 100 + b"\n"] * 20, limit=1_000)
    assert _data(b"data: " + b"x" * 900 + b"\n\n", limit=1_000) == ["x" * 900]


def test_the_splitter_is_linear_in_the_bytes():
    """1 MB of a line that never ends, fed in 1-byte pieces, and 1 MB of bare CRs: each
    finishes in seconds (a splitter that rescanned its buffer on every piece would not)."""
    splitter = LineSplitter(max_line_bytes=20_000_000)
    started = time.perf_counter()
    for _ in range(1_000_000):
        splitter.feed(b"x")
    assert time.perf_counter() - started < 5
    started = time.perf_counter()
    assert len(LineSplitter(10).feed(b"\r" * 1_000_000)) == 1_000_000
    assert time.perf_counter() - started < 2
