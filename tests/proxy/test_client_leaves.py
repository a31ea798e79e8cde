"""A client that leaves before its non-streamed reply: the turn is still finished and
recorded (with its decision), whether the upstream or the guard was still working.

The proxy and a scripted upstream run on 127.0.0.1 (in-process servers); the client is httpx
with a read time-out shorter than the upstream's delay, so it closes the connection first."""

from __future__ import annotations

import time

import httpx
import pytest

from guardrail.proxy.scripted import ScriptedReply
from tests.proxy.conftest import proxy_in_thread
from tests.streaming.conftest import GENERAL_CTX, GENERAL_Q, records


def _records_within(audit, seconds: float) -> list[dict]:
    deadline = time.monotonic() + seconds
    while True:
        found = records(audit) if audit.exists() else []
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_client_that_leaves_before_the_reply_still_gets_its_turn_recorded(tmp_path):
    slow = ScriptedReply(GENERAL_CTX[0], delay_s=1.0)
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": GENERAL_Q}],
        "guardrail": {"contexts": GENERAL_CTX},
    }
    with proxy_in_thread(tmp_path, slow) as (url, audit):
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/v1/chat/completions", json=body, timeout=0.3)
        found = _records_within(audit, 15)
        time.sleep(0.5)  # no second record follows
        found = records(audit)
    assert len(found) == 1, found
    [record] = found
    assert record["answer"] == GENERAL_CTX[0]
    assert record["decision"]["action"] in {"pass", "highlight", "abstain", "escalate"}
