"""docs/streaming.md's examples run as written (the SDK example against a scripted model
server on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.server.testing import serve_in_thread
from tests.streaming.docs_runner import run_page


def test_streaming_page_examples_run(tmp_path: Path):
    """Every python block of the page runs; the outcomes it states are the ones printed."""
    answer = "The Eiffel Tower was completed in 1889."
    app = scripted_upstream(lambda body: ScriptedReply(answer))
    with serve_in_thread(app) as url:  # type: ignore[arg-type]
        out = run_page(
            "streaming.md", tmp_path, {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "x"}
        )
    lines = out.splitlines()
    assert "hold escalate" in lines
    assert lines.count("release pass") == 2
    assert app.state.requests[0]["stream"] is True
    assert "Paracetamol is generally considered the first choice" in out
    assert "completely safe" not in out
