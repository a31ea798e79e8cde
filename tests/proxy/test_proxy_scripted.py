"""``guardrail proxy`` with the openai SDK as the client and a scripted upstream: what passes,
what is held, what passes through untouched, and one audit record per turn whatever happens."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import openai
import pytest

from guardrail.proxy.scripted import ScriptedReply
from tests.proxy.conftest import PROXY_KEY, UPSTREAM_KEY, Proxy, sse_payloads, upstream_seen
from tests.streaming.conftest import (
    AFTER,
    GENERAL_CTX,
    GENERAL_Q,
    PREGNANCY_CTX,
    PREGNANCY_Q,
    SAFE,
    UNSAFE,
)

UNSAFE_TEXT = UNSAFE.strip()
TOOL_CALL = {
    "id": "call_7",
    "type": "function",
    "function": {"name": "lookup", "arguments": '{"city": "Paris", "note": "a \\"quoted\\" é"}'},
}


def ask(question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Answer from the context."},
        {"role": "user", "content": question},
    ]


def with_contexts(contexts: list[str]) -> dict[str, Any]:
    return {"guardrail": {"contexts": contexts}}


def test_passing_answer_comes_back_unchanged_with_the_decision(proxy: Proxy, upstream, reply):
    """A supported answer is the upstream's; decision in the body and the headers; the
    guardrail field does not go upstream, unknown fields do."""
    answer = "The Eiffel Tower was completed in 1889."
    reply(ScriptedReply(answer))
    raw = proxy.client().chat.completions.with_raw_response.create(
        model="scripted-model",
        messages=ask(GENERAL_Q),
        extra_body={**with_contexts(GENERAL_CTX), "x_vendor_option": {"keep": True}},
        seed=7,
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == answer
    summary = completion.model_extra["guardrail"]
    assert summary["decision"] == "pass" and summary["topic"] == "general"
    assert raw.headers["x-guardrail-decision"] == "pass"
    assert raw.headers["x-guardrail-audit-id"] == summary["audit_id"]
    body, headers = upstream_seen(upstream)
    assert "guardrail" not in body and body["x_vendor_option"] == {"keep": True}
    assert body["seed"] == 7 and "authorization" not in headers
    record = proxy.record(summary["audit_id"])
    assert record["kind"] == "turn" and record["final_answer"] == answer


def test_unsafe_answer_is_replaced_and_escalated(proxy: Proxy, reply):
    """Non-streamed: a flagged sensitive answer becomes the escalation notice; no logprobs
    of the withheld text come back."""
    reply(ScriptedReply(SAFE + UNSAFE, extra_choice={"logprobs": {"content": [{"token": "Ib"}]}}))
    completion = proxy.client().chat.completions.create(
        model="m", messages=ask(PREGNANCY_Q), extra_body=with_contexts(PREGNANCY_CTX)
    )
    assert completion.choices[0].message.content == "A clinician will check this."
    assert completion.choices[0].logprobs is None
    summary = completion.model_extra["guardrail"]
    assert summary["decision"] == "escalate" and summary["flagged"] is True
    assert proxy.record(summary["audit_id"])["decision"]["queue"] == "clinical-review"


def test_stream_hold_never_sends_the_unsafe_sentence(proxy: Proxy, reply):
    """Streamed, hold topic: the safe sentence arrives, the unsafe one never does, the last
    chunk carries the decision; one record."""
    reply(ScriptedReply(SAFE + UNSAFE + AFTER))
    stream = proxy.client().chat.completions.create(
        model="m", messages=ask(PREGNANCY_Q), extra_body=with_contexts(PREGNANCY_CTX), stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith(SAFE) and UNSAFE_TEXT not in text and "as much" not in text
    assert "A clinician will check this." in text
    summary = chunks[-1].model_extra["guardrail"]
    assert summary["decision"] == "escalate"
    assert chunks[-1].choices[0].finish_reason == "stop"
    record = proxy.record(summary["audit_id"])
    assert record["final_answer"] == text and UNSAFE_TEXT in record["answer"]


def test_stream_release_passes_every_chunk(proxy: Proxy, reply):
    """Streamed, release topic: the chunks are the upstream's, then the decision."""
    answer = "The Eiffel Tower was completed in 1889. It is 330 metres tall."
    reply(ScriptedReply(answer))
    stream = proxy.client().chat.completions.create(
        model="m", messages=ask(GENERAL_Q), extra_body=with_contexts(GENERAL_CTX), stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == answer
    assert chunks[-1].model_extra["guardrail"]["decision"] == "pass"


def test_contexts_from_the_system_message_block(proxy: Proxy, reply):
    """Without guardrail.contexts, <context> blocks of the system message are the contexts."""
    reply(ScriptedReply(SAFE))
    system = "Answer from these sources.\n" + "".join(
        f"<context>{c}</context>\n" for c in PREGNANCY_CTX
    )
    completion = proxy.client().chat.completions.create(
        model="m",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": PREGNANCY_Q}],
    )
    assert completion.choices[0].message.content == SAFE
    assert completion.model_extra["guardrail"]["decision"] == "pass"


def test_tool_calls_pass_through_unscored(proxy: Proxy, reply):
    """A turn ending in tool calls: the calls exactly as the upstream sent them, not scored,
    recorded."""
    reply(ScriptedReply(tool_calls=[TOOL_CALL]))
    completion = proxy.client().chat.completions.create(
        model="m",
        messages=ask("What is the weather in Paris?"),
        tools=[{"type": "function", "function": {"name": "lookup", "parameters": {}}}],
    )
    (call,) = completion.choices[0].message.tool_calls
    assert call.id == TOOL_CALL["id"]
    assert call.function.arguments == TOOL_CALL["function"]["arguments"]
    summary = completion.model_extra["guardrail"]
    assert summary["score"] is None and "tool calls" in summary["reason"]
    assert proxy.record(summary["audit_id"])["kind"] == "turn"


def test_streamed_tool_call_chunks_are_forwarded_byte_for_byte(proxy: Proxy, upstream, reply):
    """The SSE payload of a tool-call chunk is the upstream's payload, byte for byte."""
    reply(ScriptedReply(tool_calls=[TOOL_CALL]))
    body = {"model": "m", "messages": ask("Weather in Paris?"), "stream": True}
    direct = httpx.post(f"{upstream.state.url}/chat/completions", json=body, timeout=30)
    through = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, timeout=30)
    tool_lines = [p for p in sse_payloads(direct.content) if "tool_calls" in p and "lookup" in p]
    assert len(tool_lines) == 1
    assert tool_lines[0] in sse_payloads(through.content)
    final = json.loads(sse_payloads(through.content)[-2])
    assert "tool calls" in final["guardrail"]["reason"]


def test_several_choices_are_each_guarded(proxy: Proxy, reply):
    """n=2: both choices checked, a summary per choice, a record per choice."""
    reply(ScriptedReply("The Eiffel Tower was completed in 1889."))
    completion = proxy.client().chat.completions.create(
        model="m", messages=ask(GENERAL_Q), extra_body=with_contexts(GENERAL_CTX), n=2
    )
    assert len(completion.choices) == 2
    per_choice = completion.model_extra["guardrail"]["choices"]
    assert len({c["audit_id"] for c in per_choice}) == 2
    for summary in per_choice:
        proxy.record(summary["audit_id"])


def test_client_disconnect_mid_stream_leaves_one_complete_record(proxy: Proxy, reply):
    """The client reads one chunk and hangs up: the turn is still finished and recorded."""
    reply(ScriptedReply(SAFE * 6, pause_s=0.1))
    body = {
        "model": "m",
        "messages": ask(PREGNANCY_Q),
        "stream": True,
        **with_contexts(PREGNANCY_CTX),
    }
    with httpx.stream("POST", f"{proxy.url}/v1/chat/completions", json=body, timeout=30) as r:
        audit_id = r.headers["x-guardrail-audit-id"]
        lines = r.iter_lines()
        while "Paracetamol" not in next(lines):
            pass
    record = proxy.record(audit_id)
    assert record["kind"] == "turn" and "stopped reading" in record["decision"]["reason"]
    assert record["final_answer"].startswith("Paracetamol")


@pytest.mark.parametrize(
    ("scripted", "status"),
    [
        (ScriptedReply(status=500, error="model crashed"), 502),
        (ScriptedReply(status=400, error="unknown model"), 400),
        (ScriptedReply(status=429, error="slow down"), 429),
        (ScriptedReply("late", delay_s=2.5), 504),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_upstream_errors_map_to_statuses_and_are_recorded(
    proxy: Proxy, reply, scripted, status, stream
):
    """Upstream 5xx -> 502, 4xx kept, too slow -> 504; each leaves a turn_failed record."""
    reply(scripted)
    before = len(proxy.records())
    with pytest.raises(openai.APIStatusError) as info:
        result = proxy.client().chat.completions.create(
            model="m", messages=ask(GENERAL_Q), stream=stream
        )
        list(result) if stream else None
    assert info.value.status_code == status
    if status == 429:
        assert info.value.response.headers["retry-after"] == "1"
    new = proxy.records()[before:]
    assert [r["event_name"] for r in new] == ["turn_failed"]
    assert new[0]["question"] == GENERAL_Q


def test_stream_cut_by_the_upstream_is_an_error_and_recorded(proxy: Proxy, reply):
    """The upstream drops the connection mid-stream: the SDK raises, the turn is recorded."""
    reply(ScriptedReply(SAFE + SAFE, break_after=3))
    before = len(proxy.records())
    with pytest.raises(openai.APIError):
        list(
            proxy.client().chat.completions.create(model="m", messages=ask(GENERAL_Q), stream=True)
        )
    new = proxy.records()[before:]
    assert [r["event_name"] for r in new] == ["turn_failed"]


def test_models_are_the_upstreams(proxy: Proxy):
    """GET /v1/models lists what the upstream lists."""
    assert [m.id for m in proxy.client().models.list()] == ["scripted-model"]


def test_api_key_is_required_and_the_upstream_gets_its_own(keyed_proxy: Proxy, upstream, reply):
    """A wrong key is 401 before anything is done; the upstream sees the proxy's key only."""
    reply(ScriptedReply("The Eiffel Tower was completed in 1889."))
    with pytest.raises(openai.AuthenticationError):
        keyed_proxy.client("wrong").chat.completions.create(model="m", messages=ask(GENERAL_Q))
    keyed_proxy.client(PROXY_KEY).chat.completions.create(model="m", messages=ask(GENERAL_Q))
    _, headers = upstream_seen(upstream)
    assert headers["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_request_limits_apply(keyed_proxy: Proxy, reply):
    """A body over --max-body-bytes is 413; over --max-in-flight is 503."""
    client = keyed_proxy.client(PROXY_KEY)
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="m", messages=ask("x" * 6000))
    assert info.value.status_code == 413
    reply(ScriptedReply("The Eiffel Tower was completed in 1889.", delay_s=0.8))
    statuses: list[int] = []

    def call() -> None:
        try:
            client.chat.completions.create(model="m", messages=ask(GENERAL_Q))
            statuses.append(200)
        except openai.APIStatusError as exc:
            statuses.append(exc.status_code)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 503]
