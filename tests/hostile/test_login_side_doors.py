"""Reviewer login against ``guardrail serve --workers 2``: the throttle keys on the socket peer
(X-Forwarded-For is not trusted unless configured), one limit for both processes, and the
session cookie carries nothing derived from the token."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from guardrail.server.testing import wait_until_healthy
from tests.hostile.test_serve_workers import free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "alice-token-0123456789abcdef"


def serve(tmp_path: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice:{TOKEN}\n")
    env = {**os.environ, "GR_SECRET": "s" * 40}
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "guardrail", "serve", "--workers", "2",
            "--policy", str(ROOT / "policies" / "default.yaml"), "--port", str(port),
            "--db", str(tmp_path / "review.sqlite3"), "--audit-log", str(tmp_path / "a.jsonl"),
            "--tokens-file", str(tokens), "--session-secret-env", "GR_SECRET", *extra,
        ],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, proc, timeout_s=90)
        yield url
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def login(url: str, token: str, headers: dict[str, str]) -> httpx.Response:
    """A fresh client each time (new connection: either worker may answer)."""
    with httpx.Client(base_url=url, timeout=30) as client:
        page = client.get("/review/login", headers=headers)
        match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert match, page.text[:500]
        return client.post(
            "/review/login",
            data={"token": token, "csrf_token": match.group(1)},
            headers=headers,
        )


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory) -> Iterator[str]:
    yield from serve(tmp_path_factory.mktemp("workers"))


def test_forwarded_for_does_not_escape_the_throttle_across_two_workers(two_workers):
    codes = [
        login(two_workers, "wrong-token-0123456789", {"X-Forwarded-For": f"10.0.0.{n}"}).status_code
        for n in range(7)
    ]
    assert codes[:5] == [401] * 5 and codes[5:] == [429, 429]


def test_the_session_cookie_holds_no_token_derived_data(tmp_path):
    for url in serve(tmp_path):
        with httpx.Client(base_url=url, timeout=30) as client:
            page = client.get("/review/login")
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
            assert csrf
            r = client.post("/review/login", data={"token": TOKEN, "csrf_token": csrf.group(1)})
            assert r.status_code == 303
            cookie = client.cookies["guardrail_review"]
            assert "Signed in as" in client.get("/review").text
    payload = cookie.split(".")[0]
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert set(data) == {"reviewer", "sid", "csrf"}
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    assert digest[:16] not in json.dumps(data) and TOKEN not in json.dumps(data)
