"""A real ``guardrail serve`` or ``guardrail proxy`` on 127.0.0.1 for the service benchmarks,
stopped on exit."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks._common import repo_root
from guardrail.server.testing import wait_until_healthy

API_KEY = "benchmark-api-key-0123456789"
REVIEWER_TOKEN = "reviewer-token-0123456789abcdef"


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]
    folder: Path

    @property
    def audit_log(self) -> Path:
        return self.folder / "audit.jsonl"

    def rss_mb(self) -> tuple[float, float]:
        """(current, peak) resident memory of the server process, in MB (Linux)."""
        fields: dict[str, float] = {}
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0]) / 1024
        return fields.get("VmRSS", float("nan")), fields.get("VmHWM", float("nan"))

    def records(self) -> list[dict[str, Any]]:
        """Every record of the audit log."""
        if not self.audit_log.exists():
            return []
        return [json.loads(x) for x in self.audit_log.read_text(encoding="utf-8").splitlines()]

    def audited_turns(self) -> list[dict[str, Any]]:
        """Every ``turn`` record, and every ``turn_failed`` event (a turn that crashed)."""
        return [
            r
            for r in self.records()
            if r.get("kind") == "turn" or r.get("event_name") == "turn_failed"
        ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    env = {**os.environ, "BENCH_KEY": API_KEY, "BENCH_SECRET": "s" * 40}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(repo_root()), env.get("PYTHONPATH")]))
    return env


@contextlib.contextmanager
def serve(folder: Path, *extra: str, review_ui: bool = False) -> Iterator[Server]:
    """``guardrail serve`` with the default policy, an API key and files under ``folder``."""
    port = free_port()
    args = [
        sys.executable, "-m", "guardrail", "serve",
        "--policy", str(repo_root() / "policies" / "default.yaml"), "--port", str(port),
        "--db", str(folder / "review.sqlite3"), "--audit-log", str(folder / "audit.jsonl"),
        "--api-key-env", "BENCH_KEY",
    ]  # fmt: skip
    if review_ui:
        tokens = folder / "tokens.txt"
        tokens.write_text(f"alice:{REVIEWER_TOKEN}\n", encoding="utf-8")
        args += ["--tokens-file", str(tokens), "--session-secret-env", "BENCH_SECRET"]
    else:
        args.append("--no-review-ui")
    with _running([*args, *extra], folder, port) as server:
        yield server


@contextlib.contextmanager
def proxy(folder: Path, upstream_url: str, *extra: str) -> Iterator[Server]:
    """``guardrail proxy`` in front of ``upstream_url`` with the default policy and limits,
    an API key and files under ``folder``."""
    port = free_port()
    args = [
        sys.executable, "-m", "guardrail", "proxy", "--upstream", upstream_url,
        "--policy", str(repo_root() / "policies" / "default.yaml"), "--port", str(port),
        "--db", str(folder / "review.sqlite3"), "--audit-log", str(folder / "audit.jsonl"),
        "--api-key-env", "BENCH_KEY", "--upstream-timeout", "60",
    ]  # fmt: skip
    with _running([*args, *extra], folder, port) as server:
        yield server


@contextlib.contextmanager
def _running(args: list[str], folder: Path, port: int) -> Iterator[Server]:
    log = (folder / "server.log").open("w", encoding="utf-8")
    process = subprocess.Popen(args, env=_env(), stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, timeout_s=120)
        yield Server(url, process, folder)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
