"""Foundation pins: the network switch, the runner's retry and timeout behaviour."""

from __future__ import annotations

import asyncio
import random
import socket

import pytest

from guardrail.exceptions import JudgeRateLimited, JudgeRequestError
from guardrail.judges import JudgeRequest, JudgeRunner, RetryPolicy, ScriptedJudge
from guardrail.judges.runner import JudgeCallError
from guardrail.testing import NetworkBlockedError


def test_network_is_blocked_in_tests():
    """A connection to a public address fails instead of leaving the machine."""
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("93.184.216.34", 80), timeout=1)


async def test_runner_retries_retryable_errors_then_succeeds():
    """Two 429s then an answer: three attempts, one successful record."""
    state = {"n": 0}

    def handler(req: JudgeRequest) -> str:
        state["n"] += 1
        if state["n"] < 3:
            raise JudgeRateLimited("slow down", status_code=429)
        return "YES. fine"

    runner = JudgeRunner(
        ScriptedJudge(handler), RetryPolicy(backoff_base_s=0.001), rng=random.Random(0)
    )
    response, call = await runner.call("verify", JudgeRequest(task="verify", prompt="p"))
    assert response.text == "YES. fine"
    assert call.attempts == 3 and call.ok


async def test_runner_does_not_retry_request_errors():
    """A 400-class error fails at once and the failure is recorded."""
    calls = {"n": 0}

    def handler(req: JudgeRequest) -> str:
        calls["n"] += 1
        raise JudgeRequestError("bad model", status_code=404)

    runner = JudgeRunner(ScriptedJudge(handler), RetryPolicy(backoff_base_s=0.001))
    with pytest.raises(JudgeCallError) as info:
        await runner.call("verify", JudgeRequest(task="verify", prompt="p"))
    assert calls["n"] == 1
    assert info.value.call.ok is False and "bad model" in (info.value.call.error or "")


async def test_runner_times_out_slow_calls():
    """A call slower than the timeout is retried, then reported as a timeout."""

    async def handler(req: JudgeRequest) -> str:
        await asyncio.sleep(1.0)
        return "YES"

    runner = JudgeRunner(
        ScriptedJudge(handler), RetryPolicy(timeout_s=0.02, max_attempts=2, backoff_base_s=0.001)
    )
    with pytest.raises(JudgeCallError) as info:
        await runner.call("verify", JudgeRequest(task="verify", prompt="p"))
    assert info.value.call.attempts == 2
    assert "JudgeTimeout" in (info.value.call.error or "")


def test_backoff_is_capped_exponential_with_jitter():
    """Backoff before try n lies in [0, min(max, base * 2**(n-2))]."""
    runner = JudgeRunner(
        ScriptedJudge(lambda r: "YES"),
        RetryPolicy(backoff_base_s=1.0, backoff_max_s=4.0),
        rng=random.Random(1),
    )
    for attempt, cap in [(2, 1.0), (3, 2.0), (4, 4.0), (5, 4.0), (9, 4.0)]:
        samples = [runner.backoff(attempt) for _ in range(200)]
        assert all(0.0 <= s <= cap for s in samples)
        assert max(samples) > cap * 0.8  # jitter spans the range
