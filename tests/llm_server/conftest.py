"""Real llama.cpp servers (Gemma 3 270M, SmolLM2-135M-Instruct) on 127.0.0.1 for the tests
marked ``llm_server``.

Skips with the reason when the ``llm-server`` extra is not installed, except under CI=true,
where the project's set-up (``scripts/ci_setup.sh``) installs it and a skip would hide a gap.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from guardrail.judges.openai import OpenAIJudge
from guardrail.local_server import (
    MODEL_NAME,
    SMOLLM2_NAME,
    RunningServer,
    llama_server,
    missing_parts,
)
from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]


def require_llm_server(model: str = MODEL_NAME) -> None:
    """Skip (fail under CI=true) when the local model server cannot run here."""
    missing = missing_parts(model)
    if not missing:
        return
    unavailable("real-server", f"needs the llm-server extra: pip install {' '.join(missing)}")


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One server for the session (start-up takes a few seconds); stopped at the end."""
    require_llm_server()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(threads=2, ctx=4096, log_path=log) as server:
        yield server


@pytest.fixture(scope="session")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """SmolLM2-135M-Instruct on llama.cpp, one server for the session."""
    require_llm_server(SMOLLM2_NAME)
    log = tmp_path_factory.mktemp("smollm2") / "server.log"
    with llama_server(SMOLLM2_NAME, threads=2, ctx=4096, log_path=log) as server:
        yield server


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp accepts any key; the SDK insists on one being set."""
    monkeypatch.setenv("OPENAI_API_KEY", "unused")


@dataclass
class Wire:
    """What the server answered, read off the HTTP responses (usage blocks), in order."""

    usages: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0

    async def on_request(self, request: httpx2.Request) -> None:
        self.requests += 1

    async def on_response(self, response: httpx2.Response) -> None:
        await response.aread()
        if response.status_code == 200:
            self.usages.append(json.loads(response.content)["usage"])


def wired_judge(
    url: str, wire: Wire, *, structured_output: str = "auto", **hooks: Any
) -> OpenAIJudge:
    """An OpenAIJudge on ``url`` whose HTTP client records every response's usage."""
    client = httpx2.AsyncClient(
        timeout=120,
        event_hooks={
            "request": [wire.on_request, *hooks.get("request", [])],
            "response": [wire.on_response],
        },
    )
    return OpenAIJudge(
        MODEL_NAME,
        base_url=url,
        api_key="unused",
        http_client=client,
        structured_output=structured_output,  # type: ignore[arg-type]
    )
