"""``guardrail serve --workers 2``: two processes, one review database, one intact audit chain."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from guardrail.audit import verify_log
from guardrail.cli import main
from guardrail.queues import SQLiteQueue
from guardrail.server.testing import wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
KEY = "workers-test-key-0123456789"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_workers_share_the_queue_and_the_audit_log(tmp_path: Path):
    port = free_port()
    audit = tmp_path / "audit.jsonl"
    env = {**os.environ, "GR_KEY": KEY}
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "guardrail", "serve", "--workers", "2", "--no-review-ui",
            "--policy", str(ROOT / "policies" / "default.yaml"), "--port", str(port),
            "--db", str(tmp_path / "review.sqlite3"), "--audit-log", str(audit),
            "--api-key-env", "GR_KEY",
        ],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, proc, timeout_s=60)
        body = {
            "question": "Can pregnant women take ibuprofen?",
            "answer": "Yes, ibuprofen is safe throughout pregnancy.",
            "contexts": ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
        }

        def one(_: int) -> tuple[int, str]:
            headers = {"Authorization": f"Bearer {KEY}"}
            r = httpx.post(f"{url}/v1/check", json=body, headers=headers, timeout=60)
            return r.status_code, r.json()["decision"]["action"] if r.status_code == 200 else ""

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(one, range(24)))
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert [code for code, _ in codes] == [200] * 24, out
    report = verify_log(audit)
    assert report.ok and report.records == 24
    assert out.count("Started server process") == 2
    escalations = sum(action == "escalate" for _, action in codes)
    counts = SQLiteQueue(tmp_path / "review.sqlite3").counts()
    assert escalations == 24 and sum(sum(c.values()) for c in counts.values()) == escalations


def test_workers_with_the_review_ui_need_a_shared_session_secret(capsys, tmp_path: Path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice:" + "a" * 24 + "\n")
    argv = ["serve", "--workers", "2", "--tokens-file", str(tokens), "--db", str(tmp_path / "r.db")]
    code = main([*argv, "--policy", str(ROOT / "policies" / "default.yaml")])
    assert code == 2
    assert "needs --session-secret-env" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [("--max-body-bytes", "10", "--max-body-bytes: Input should be greater than or equal to 1000")],
)
def test_limit_flags_are_validated(flag: str, value: str, message: str, capsys, tmp_path: Path):
    code = main(["serve", "--no-review-ui", "--db", str(tmp_path / "r.db"), flag, value])
    assert code == 2
    assert message in capsys.readouterr().err
