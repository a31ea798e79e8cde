"""A scripted upstream in this process and real ``guardrail proxy`` processes in front of it,
all on 127.0.0.1; the ``openai`` SDK is the client."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest

from guardrail.audit.log import AuditLog
from guardrail.guard import Guard
from guardrail.local_server import free_port
from guardrail.policy import parse_policy
from guardrail.proxy import Upstream, create_proxy_app
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.server.testing import serve_in_thread, wait_until_healthy
from tests.streaming.conftest import POLICY_YAML, records

ROOT = Path(__file__).resolve().parents[2]
PROXY_KEY = "proxy-key-0123456789abcdef"
UPSTREAM_KEY = "upstream-key-0123456789abcdef"


class Script:
    """What the scripted upstream answers next: a function of the request body."""

    def __init__(self) -> None:
        self.reply: Callable[[dict[str, Any]], ScriptedReply] = lambda body: ScriptedReply("Hi.")

    def __call__(self, body: dict[str, Any]) -> ScriptedReply:
        return self.reply(body)


@dataclass
class Proxy:
    url: str
    audit: Path
    review_db: Path
    process: subprocess.Popen[bytes]

    def client(self, api_key: str = "any-key", **options: Any) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key=api_key, max_retries=0, **options)

    def records(self) -> list[dict[str, Any]]:
        return records(self.audit)

    def record(self, audit_id: str, *, timeout_s: float = 30.0) -> dict[str, Any]:
        """The one record of ``audit_id``, waiting for it (a turn may finish after its reply)."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = [r for r in self.records() if r["audit_id"] == audit_id]
            if found or time.monotonic() > deadline:
                assert len(found) == 1, f"{len(found)} records for {audit_id}"
                return found[0]
            time.sleep(0.05)


@contextlib.contextmanager
def run_proxy(
    directory: Path,
    upstream_url: str,
    *extra: str,
    env: dict[str, str] | None = None,
    policy_text: str = POLICY_YAML,
) -> Iterator[Proxy]:
    """``python -m guardrail proxy`` in a process of its own; stopped on exit."""
    directory.mkdir(parents=True, exist_ok=True)
    policy = directory / "policy.yaml"
    policy.write_text(policy_text)
    port = free_port()
    audit, review = directory / "audit.jsonl", directory / "review.sqlite3"
    command = [
        sys.executable, "-m", "guardrail", "proxy", "--upstream", upstream_url,
        "--policy", str(policy), "--port", str(port), "--audit-log", str(audit),
        "--db", str(review), *extra,
    ]  # fmt: skip
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    log = open(directory / "proxy.log", "ab")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, cwd=directory, env=full_env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, timeout_s=120)
        yield Proxy(url, audit, review, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def proxy_in_thread(
    tmp_path: Path, reply: ScriptedReply, *, guard: Guard | None = None, **options: Any
) -> Iterator[tuple[str, Path]]:
    """The proxy app in this process in front of a scripted upstream answering ``reply``, both
    served on 127.0.0.1; yields the proxy's URL and its audit log (``guard``: one on the test
    policy auditing to ``tmp_path``). ``options`` go to ``create_proxy_app``."""
    audit = tmp_path / "audit.jsonl"
    if guard is None:
        guard = Guard(parse_policy(POLICY_YAML), audit=AuditLog(audit))
    upstream_app = scripted_upstream(lambda body: reply)
    with serve_in_thread(upstream_app) as upstream_url:  # type: ignore[arg-type]
        app = create_proxy_app(guard=guard, upstream=Upstream(f"{upstream_url}/v1"), **options)
        with serve_in_thread(app) as url:  # type: ignore[arg-type]
            yield url, audit


@pytest.fixture(scope="session")
def script() -> Script:
    return Script()


@pytest.fixture(scope="session")
def upstream(script: Script) -> Iterator[Any]:
    """The scripted upstream app (its ``state.requests``/``state.headers``) and URL."""
    app = scripted_upstream(script)
    with serve_in_thread(app) as url:  # type: ignore[arg-type]
        app.state.url = f"{url}/v1"
        yield app


@pytest.fixture(scope="session")
def proxy(upstream: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    """An open proxy (no key asked, none sent upstream), 1 s upstream time-out."""
    with run_proxy(
        tmp_path_factory.mktemp("proxy"), upstream.state.url, "--upstream-timeout", "1"
    ) as running:
        yield running


@pytest.fixture(scope="session")
def keyed_proxy(upstream: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    """A proxy that asks clients for a key and sends its own key upstream; tiny limits."""
    env = {"GR_PROXY_KEY": PROXY_KEY, "GR_UPSTREAM_KEY": UPSTREAM_KEY}
    with run_proxy(
        tmp_path_factory.mktemp("keyed"),
        upstream.state.url,
        "--api-key-env", "GR_PROXY_KEY", "--upstream-key-env", "GR_UPSTREAM_KEY",
        "--max-body-bytes", "5000", "--max-in-flight", "1",
        env=env,
    ) as running:  # fmt: skip
        yield running


@pytest.fixture
def reply(script: Script) -> Iterator[Callable[[ScriptedReply], None]]:
    """Set the upstream's next reply(ies): ``reply(ScriptedReply(...))``."""

    def set_reply(value: ScriptedReply) -> None:
        script.reply = lambda body: value

    yield set_reply
    script.reply = lambda body: ScriptedReply("Hi.")


def sse_payloads(raw: bytes) -> list[str]:
    """The ``data:`` payloads of an SSE body, in order."""
    return [
        line[5:].strip()
        for line in raw.decode().split("\n")
        if line.startswith("data:") and line[5:].strip()
    ]


def upstream_seen(upstream: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The last request body and headers the upstream received."""
    return upstream.state.requests[-1], upstream.state.headers[-1]
