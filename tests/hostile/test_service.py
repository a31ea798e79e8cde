"""The HTTP service under hostile input: nothing blocks, nothing is read that need not be."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from guardrail.models import GuardResult
from guardrail.queues import SQLiteQueue
from guardrail.server import create_app
from guardrail.server.testing import serve_in_thread
from guardrail.serving.limits import RequestLimits
from tests.server.conftest import API_KEY, FakeChecker

KEY = {"Authorization": f"Bearer {API_KEY}"}


class BlockingChecker(FakeChecker):
    """Holds its thread (as CPU-bound scoring does) until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult:
        self.started.set()
        self.release.wait(20)  # blocks the event loop it runs on, like the offline judge
        return await super().acheck(question, answer, contexts)


def live_app(tmp_path, checker: FakeChecker, **limits: int) -> Iterator[str]:
    app = create_app(
        checker=checker,
        queue=SQLiteQueue(tmp_path / "q.sqlite3"),
        api_key=API_KEY,
        reviewer_tokens={},
        review_ui=False,
        limits=RequestLimits(**limits),
    )
    with serve_in_thread(app) as url:
        yield url


@pytest.fixture
def blocking() -> BlockingChecker:
    return BlockingChecker()


@pytest.fixture
def live(tmp_path, blocking) -> Iterator[str]:
    yield from live_app(tmp_path, blocking, max_body_bytes=10_000)


def raw_request(url: str, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """Send ``head`` (+ ``body``) on a raw socket; return the status and the reply."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(head.encode() + b"\r\n\r\n" + body)
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += sock.recv(65536)
        headers, _, content = reply.partition(b"\r\n\r\n")
        length = int(headers.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        while len(content) < length:
            content += sock.recv(65536)
    return int(headers.split(b" ", 2)[1]), content


def test_healthz_answers_while_a_check_is_being_scored(live, blocking):
    """A check whose scoring holds its thread does not hold the server: /healthz answers."""
    results: list[int] = []
    body = {"question": "q", "answer": "a"}
    worker = threading.Thread(
        target=lambda: results.append(
            httpx.post(f"{live}/v1/check", json=body, headers=KEY, timeout=30).status_code
        )
    )
    worker.start()
    assert blocking.started.wait(10)
    try:
        health = httpx.get(f"{live}/healthz", timeout=5)
        assert health.status_code == 200 and not blocking.release.is_set()
    finally:
        blocking.release.set()
        worker.join(30)
    assert results == [200]


def test_a_huge_body_without_a_key_gets_401_before_it_is_sent(live, blocking):
    """The key is checked from the headers: the 100 MB body is never read."""
    status, _ = raw_request(
        live,
        "POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 100000000",
    )
    assert status == 401 and not blocking.started.is_set()


def test_a_declared_body_over_the_limit_gets_413_before_it_is_sent(live, blocking):
    status, reply = raw_request(
        live,
        "POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {API_KEY}\r\nContent-Length: 100000000",
    )
    assert status == 413 and b"larger than 10000 bytes" in reply


def test_a_chunked_body_over_the_limit_gets_413(live, blocking):
    """Without a Content-Length the bytes are counted as they arrive."""

    def chunks() -> Iterator[bytes]:
        yield b'{"question": "q", "answer": "'
        for _ in range(20):
            yield b"x" * 1000
        yield b'"}'

    r = httpx.post(f"{live}/v1/check", content=chunks(), headers=KEY, timeout=10)
    assert r.status_code == 413 and not blocking.started.is_set()


def test_odd_code_points_are_replaced_and_the_turn_is_checked(tmp_path):
    """A lone surrogate (an emoji cut in half), NUL and a non-character reach the checker as
    U+FFFD, so the turn is scored and audited; the reply says how many were replaced."""
    checker = FakeChecker()
    body = (
        b'{"question": "\\ud800why?", "answer": "a\\u0000b\\uffff",'
        b' "contexts": ["half an emoji \\ud83d"]}'
    )
    for url in live_app(tmp_path, checker):
        r = httpx.post(
            f"{url}/v1/check",
            content=body,
            headers={**KEY, "Content-Type": "application/json"},
            timeout=10,
        )
        assert r.status_code == 200, r.text
        assert r.headers["X-Guardrail-Replaced-Characters"] == "4"
    assert checker.seen == [("\ufffdwhy?", "a\ufffdb\ufffd", ["half an emoji \ufffd"])]


def test_a_422_does_not_echo_the_input(tmp_path, blocking):
    """A 2 MB wrong-typed field gets a short 422, not 2 MB back."""
    for url in live_app(tmp_path, blocking):
        body = {"question": ["x" * 2_000_000], "answer": "a"}
        r = httpx.post(f"{url}/v1/check", json=body, headers=KEY, timeout=30)
        assert r.status_code == 422 and len(r.content) < 2_000
        assert r.json()["detail"][0]["loc"] == ["body", "question"]
