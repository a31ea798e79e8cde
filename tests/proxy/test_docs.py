"""docs/proxy.md's examples run as written against a real proxy and a scripted upstream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guardrail.proxy.scripted import ScriptedReply
from tests.proxy.conftest import Script, run_proxy
from tests.streaming.conftest import SAFE, UNSAFE
from tests.streaming.docs_runner import ROOT, run_page


def test_proxy_page_examples_run(tmp_path: Path, upstream: Any, script: Script):
    """Both SDK examples run: the Eiffel answer passes, the held ibuprofen sentence is never
    printed, and the stream ends with the escalation."""

    def reply(body: dict[str, Any]) -> ScriptedReply:
        if "Eiffel" in body["messages"][-1]["content"]:
            return ScriptedReply("The Eiffel Tower was completed in 1889.")
        return ScriptedReply(SAFE + UNSAFE)

    before, script.reply = script.reply, reply
    policy = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    try:
        with run_proxy(tmp_path / "proxy", upstream.state.url, policy_text=policy) as proxy:
            out = run_page(
                "proxy.md",
                tmp_path,
                {"OPENAI_BASE_URL": f"{proxy.url}/v1", "OPENAI_API_KEY": "x"},
            )
    finally:
        script.reply = before
    lines = out.splitlines()
    assert lines[0] == "The Eiffel Tower was completed in 1889."
    assert lines[1].startswith("pass ") and lines[2] == "pass"
    assert SAFE.strip() in out and UNSAFE.strip() not in out
    assert any(line.startswith("escalate ") for line in lines)
