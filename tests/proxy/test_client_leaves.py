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


def test_a_cancelled_request_handler_does_not_cancel_its_turn(tmp_path):
    """A server that cancels the handler of a request whose client left (or shuts down
    mid-request): the turn on the scoring loop still runs to its end and is recorded."""
    import asyncio

    from guardrail.audit.log import AuditLog
    from guardrail.guard import Guard
    from guardrail.policy import parse_policy
    from guardrail.proxy import Upstream, create_proxy_app
    from guardrail.proxy.scripted import scripted_upstream
    from guardrail.server.testing import serve_in_thread
    from tests.streaming.conftest import POLICY_YAML

    audit = tmp_path / "audit.jsonl"
    guard = Guard(parse_policy(POLICY_YAML), audit=AuditLog(audit))
    slow = ScriptedReply(GENERAL_CTX[0], delay_s=1.0)
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": GENERAL_Q}],
        "guardrail": {"contexts": GENERAL_CTX},
    }
    with serve_in_thread(scripted_upstream(lambda _: slow)) as upstream_url:  # type: ignore[arg-type]
        app = create_proxy_app(guard=guard, upstream=Upstream(f"{upstream_url}/v1"))

        async def leave() -> None:
            transport = httpx.ASGITransport(app=app)  # the handler runs in the client's task
            async with httpx.AsyncClient(transport=transport, base_url="http://proxy") as client:
                task = asyncio.ensure_future(client.post("/v1/chat/completions", json=body))
                await asyncio.sleep(0.3)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            for _ in range(300):  # this loop stays up, as a server's does
                if audit.exists() and records(audit):
                    return
                await asyncio.sleep(0.05)

        try:
            asyncio.run(leave())
            found = _records_within(audit, 1)
        finally:
            app.state.proxy.io.stop()
    assert len(found) == 1, found
    assert found[0]["answer"] == GENERAL_CTX[0]
