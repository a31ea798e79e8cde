"""Text beside tool calls is text the user reads: a non-streamed reply with ``content`` *and*
``tool_calls`` has its text scored and replaced when the policy says so, as the same reply
streamed does; the tool calls pass through as sent. The proxy and a scripted upstream run on
127.0.0.1 (in-process servers)."""

from __future__ import annotations

import httpx
import pytest

from guardrail.proxy.scripted import ScriptedReply
from tests.proxy.conftest import proxy_in_thread
from tests.streaming.conftest import PREGNANCY_CTX, PREGNANCY_Q, UNSAFE, records

TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize("stream", [False, True], ids=["not streamed", "streamed"])
def test_unsupported_text_beside_tool_calls_is_scored_and_withheld(tmp_path, stream):
    reply = ScriptedReply(UNSAFE, tool_calls=[TOOL_CALL])
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": PREGNANCY_Q}],
        "guardrail": {"contexts": PREGNANCY_CTX},
        "stream": stream,
    }
    with proxy_in_thread(tmp_path, reply) as (url, audit):
        r = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=120)
        [record] = records(audit)
    assert r.status_code == 200, r.text
    assert record["answer"].strip() == UNSAFE.strip()
    assert record["decision"]["score"] is not None  # scored, not passed as a tool turn
    assert record["decision"]["flagged"]
    assert UNSAFE.strip() not in r.text  # the client never sees the unsupported sentence
    if not stream:
        message = r.json()["choices"][0]["message"]
        assert message["content"] == record["final_answer"]
        assert message["tool_calls"] == [TOOL_CALL]
