"""Run an app on a real loopback socket for tests, screenshots and demos.

``with serve_in_thread(app) as base_url:`` binds 127.0.0.1 on a free port *before* starting
uvicorn (no race for the port), waits until it accepts requests, and stops it on exit.
``wait_until_healthy(base_url, process)`` waits for a ``guardrail serve`` started as a process.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

__all__ = ["serve_in_thread", "wait_until_healthy"]


@contextlib.contextmanager
def serve_in_thread(app: FastAPI, *, startup_timeout_s: float = 15.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a background thread; yield its ``http://127.0.0.1:PORT``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", access_log=False, proxy_headers=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + startup_timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def wait_until_healthy(
    base_url: str, process: subprocess.Popen[Any], *, timeout_s: float = 90.0
) -> None:
    """Poll ``GET base_url/healthz`` until it answers 200; raise ``RuntimeError`` if
    ``process`` exits first or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"the server at {base_url} exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server at {base_url} did not answer within {timeout_s} s")
        time.sleep(0.2)
