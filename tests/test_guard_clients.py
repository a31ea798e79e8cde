"""A Guard keeps its judges' SDK clients from one ``check`` to the next, and closes them."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from guardrail import Guard
from guardrail.exceptions import ConfigError
from guardrail.policy import Policy, parse_policy

from .judges.fakes import FakeServer, openai_body

POLICY = """
name: clients
scorer: {judge: "openai:test-model", k: 1, max_concurrency: 1}
classifier: {default_topic: general}
topics:
  - {name: general, threshold: 0.5, examples: ["Where is Paris?"]}
"""

QUESTION, ANSWER, CONTEXT = "Where is Paris?", "Paris is in France.", ["Paris is in France."]


def reply_for(prompt: str) -> str:
    """What a cooperative model answers at each MetaRAG stage (told apart by the prompt)."""
    if "extract atomic facts" in prompt:
        return json.dumps([ANSWER])
    if "Statement:" in prompt:  # verify: the antonym is contradicted, the rest supported
        statement = prompt.rsplit("Statement:", 1)[1]
        return "NO. Contradicted." if " not " in statement else "YES. The passage says so."
    if "Antonym" in prompt:
        return "Paris is not in France."
    return "Paris lies in France."


def handle(request: httpx2.Request) -> httpx2.Response:
    prompt = json.loads(request.content)["messages"][-1]["content"]
    return httpx2.Response(200, json=openai_body(reply_for(prompt)))


@pytest.fixture
def policy(monkeypatch: pytest.MonkeyPatch) -> Policy:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return parse_policy(POLICY)


def test_one_sdk_client_serves_many_checks(policy: Policy, monkeypatch: pytest.MonkeyPatch):
    """Five blocking checks: the SDK builds its HTTP client once, and it carries every call."""
    server = FakeServer([handle])
    built: list[httpx2.AsyncClient] = []

    def http_client(**kwargs: Any) -> httpx2.AsyncClient:
        client = server.http_client()
        built.append(client)
        return client

    monkeypatch.setattr(openai, "DefaultAsyncHttpxClient", http_client)
    with Guard(policy) as guard:
        results = [guard.check(QUESTION, ANSWER, CONTEXT) for _ in range(5)]
        assert not built[0].is_closed
    assert [r.decision.action for r in results] == ["pass"] * 5
    assert all(r.report is not None and r.report.calls for r in results)
    calls = sum(len(r.report.calls) for r in results if r.report is not None)
    assert len(built) == 1 and server.count == calls >= 5 * 3
    assert built[0].is_closed  # close() released the client the guard built


@pytest.fixture
def loopback() -> Iterator[tuple[str, list[int]]]:
    """A real OpenAI-shaped server on 127.0.0.1 that counts the TCP connections it accepts."""
    connections: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so a kept client reuses its connection

        def setup(self) -> None:
            super().setup()
            connections.append(self.client_address[1])

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            payload = json.dumps(openai_body(reply_for(body["messages"][-1]["content"])))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload.encode())

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", connections
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_checks_share_one_connection_to_a_real_server(
    policy: Policy, loopback: tuple[str, list[int]], monkeypatch: pytest.MonkeyPatch
):
    """With one call in flight at a time, four checks travel over a single kept-alive socket."""
    base_url, connections = loopback
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    with Guard(policy) as guard:
        results = [guard.check(QUESTION, ANSWER, CONTEXT) for _ in range(4)]
    assert [r.decision.action for r in results] == ["pass"] * 4
    assert len(connections) == 1


def test_checks_from_many_threads_share_the_loop(policy: Policy, monkeypatch: pytest.MonkeyPatch):
    """Threads calling check at once all succeed, through the one client."""
    server = FakeServer([handle])
    built: list[httpx2.AsyncClient] = []
    monkeypatch.setattr(
        openai,
        "DefaultAsyncHttpxClient",
        lambda **kw: built.append(server.http_client()) or built[-1],
    )
    guard = Guard(policy)
    out: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: out.append(guard.check(QUESTION, ANSWER, CONTEXT).decision.action)
        )
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    guard.close()
    assert out == ["pass"] * 4 and len(built) == 1


def test_a_closed_guard_starts_again(policy: Policy, monkeypatch: pytest.MonkeyPatch):
    """close() is idempotent and the guard stays usable: the next check builds a new client."""
    server = FakeServer([handle])
    built: list[httpx2.AsyncClient] = []
    monkeypatch.setattr(
        openai,
        "DefaultAsyncHttpxClient",
        lambda **kw: built.append(server.http_client()) or built[-1],
    )
    guard = Guard(policy)
    guard.check(QUESTION, ANSWER, CONTEXT)
    guard.close()
    guard.close()
    assert guard.check(QUESTION, ANSWER, CONTEXT).decision.action == "pass"
    guard.close()
    assert len(built) == 2 and all(c.is_closed for c in built)


async def test_check_inside_a_loop_is_refused_and_acheck_works(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
):
    """Inside async code the blocking call refuses clearly; acheck and aclose do the job."""
    server = FakeServer([handle])
    built: list[httpx2.AsyncClient] = []
    monkeypatch.setattr(
        openai,
        "DefaultAsyncHttpxClient",
        lambda **kw: built.append(server.http_client()) or built[-1],
    )
    async with Guard(policy) as guard:
        with pytest.raises(ConfigError, match="await the async method"):
            guard.check(QUESTION, ANSWER, CONTEXT)
        result = await guard.acheck(QUESTION, ANSWER, CONTEXT)
        assert result.decision.action == "pass"
    assert len(built) == 1 and built[0].is_closed
    assert asyncio.get_running_loop().is_running()


def test_a_blocking_regenerate_runs_off_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A sync regenerate callback runs in a worker thread, not on the guard's loop thread."""
    from guardrail.judges.local import LocalJudge

    policy = parse_policy(
        """
name: regen
scorer: {judge: local}
classifier: {default_topic: general}
topics:
  - name: general
    threshold: 0.01
    examples: ["Where is Paris?"]
    on_flag: {regenerate: {max_attempts: 1, instruction: "Only what the sources say."}}
"""
    )
    threads: list[str] = []

    def regenerate(instruction: str) -> str:
        threads.append(threading.current_thread().name)
        return "Paris is in France."

    with Guard(policy, judge=LocalJudge()) as guard:
        guard.check("Where is Paris?", "Paris is in Spain.", CONTEXT, regenerate=regenerate)
    assert threads and threads[0] != "guardrail-loop" and threads[0] != "MainThread"
