"""The openai SDK's own stream objects (sync and async), from a scripted model server on
127.0.0.1, guarded as they are."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from guardrail.guard import Guard
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.server.testing import serve_in_thread
from tests.streaming.conftest import (
    AFTER,
    PREGNANCY_CTX,
    PREGNANCY_Q,
    SAFE,
    UNSAFE,
    records,
)

MESSAGES = [{"role": "user", "content": PREGNANCY_Q}]


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    app = scripted_upstream(lambda body: ScriptedReply(SAFE + UNSAFE + AFTER))
    with serve_in_thread(app) as url:  # type: ignore[arg-type]
        yield f"{url}/v1"


def test_sync_sdk_stream_is_guarded_and_closed(guard: Guard, model_url: str, audit_path):
    """Stream[ChatCompletionChunk]: the held sentence is not released, the HTTP response is
    closed when the guard stops reading, one record."""
    client = openai.OpenAI(base_url=model_url, api_key="x", max_retries=0)
    sdk_stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    shown = "".join(guard.stream(PREGNANCY_Q, sdk_stream, PREGNANCY_CTX))
    assert shown.startswith(SAFE) and UNSAFE.strip() not in shown
    assert sdk_stream.response.is_closed
    assert len(records(audit_path)) == 1


async def test_async_sdk_stream_is_guarded(guard: Guard, model_url: str, audit_path):
    """AsyncStream[ChatCompletionChunk] through astream."""
    client = openai.AsyncOpenAI(base_url=model_url, api_key="x", max_retries=0)
    sdk_stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    stream = guard.astream(PREGNANCY_Q, sdk_stream, PREGNANCY_CTX)
    shown = "".join([piece async for piece in stream])
    assert shown.startswith(SAFE) and UNSAFE.strip() not in shown
    assert stream.result is not None and stream.result.decision.action == "escalate"
    await client.close()
