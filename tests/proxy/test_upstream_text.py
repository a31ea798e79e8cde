"""Text from the upstream that cannot be stored, and records that cannot be written.

An upstream may send lone surrogates (``"\\ud800"`` escaped in its JSON): the proxy replaces
them with U+FFFD as ``serve`` does with a request's, so the turn is answered *and* recorded.
When the record cannot be written, the client gets an error, never the answer without it.
Scripted upstream and proxy on 127.0.0.1, in this process."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from guardrail.audit.log import AuditLog
from guardrail.audit.record import AuditRecord
from guardrail.exceptions import AuditError
from guardrail.guard import Guard
from guardrail.policy import parse_policy
from guardrail.proxy.scripted import ScriptedReply
from tests.proxy.conftest import proxy_in_thread, sse_payloads
from tests.streaming.conftest import GENERAL_CTX, GENERAL_Q, POLICY_YAML, records

LONE = "\ud800"
ANSWER = f"The Eiffel Tower was completed in 1889 {LONE}and is 330 metres tall."
TOOL_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "lookup", "arguments": f'{{"q": "tower{LONE}"}}'},
}


def _body(stream: bool, question: str = GENERAL_Q) -> dict[str, Any]:
    system = "".join(f"<context>{c}</context>" for c in GENERAL_CTX)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]
    return {"model": "m", "messages": messages, "stream": stream}


def _post(url: str, stream: bool, question: str = GENERAL_Q) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/completions", json=_body(stream, question), timeout=120)


def test_a_lone_surrogate_in_a_non_streamed_answer_is_replaced_and_recorded(tmp_path):
    with proxy_in_thread(tmp_path, ScriptedReply(ANSWER)) as (url, audit):
        r = _post(url, stream=False)
        [record] = records(audit)
    assert r.status_code == 200, r.text
    content = r.json()["choices"][0]["message"]["content"]
    assert "\ufffd" in content and LONE not in content
    assert record["audit_id"] == r.json()["guardrail"]["audit_id"]
    assert "\ufffd" in record["answer"]


def test_a_lone_surrogate_in_a_streamed_answer_is_replaced_and_recorded(tmp_path):
    reply = ScriptedReply(ANSWER, tool_calls=[TOOL_CALL])
    with proxy_in_thread(tmp_path, reply) as (url, audit):
        r = _post(url, stream=True)
        [record] = records(audit)
    assert r.status_code == 200
    payloads = sse_payloads(r.content)
    assert payloads[-1] == "[DONE]", payloads[-2:]
    events = [json.loads(p) for p in payloads[:-1]]
    assert not any("error" in e for e in events)
    assert LONE not in json.dumps(events, ensure_ascii=False)  # text and tool-call arguments
    assert "\\ud800" not in r.text.lower()
    assert record["audit_id"] == r.headers["x-guardrail-audit-id"]
    assert "\ufffd" in record["answer"]


class _BrokenAudit(AuditLog):
    """An audit log whose every append fails, as a full disk would make it."""

    def append(self, record: AuditRecord) -> AuditRecord:
        raise AuditError("cannot write audit log: No space left on device")


def _broken_guard(tmp_path: Any) -> Guard:
    return Guard(parse_policy(POLICY_YAML), audit=_BrokenAudit(tmp_path / "audit.jsonl"))


def test_a_record_that_cannot_be_written_is_an_error_not_an_answer(tmp_path):
    """Not streamed: the client gets a 5xx naming the audit failure, not the answer."""
    reply = ScriptedReply("The Eiffel Tower was completed in 1889.")
    with proxy_in_thread(tmp_path, reply, guard=_broken_guard(tmp_path)) as (url, _audit):
        r = _post(url, stream=False)
    assert r.status_code >= 500
    assert "AuditError" in r.json()["error"]["message"]
    assert "1889" not in r.text


@pytest.mark.parametrize(
    ("question", "mode"),
    [(GENERAL_Q, "release"), ("How is income tax on savings paid in 1889?", "buffer")],
)
def test_a_stream_whose_record_cannot_be_written_ends_in_an_error(tmp_path, question, mode):
    """Streamed: the stream ends with an error event, never the closing chunk with a
    decision or ``[DONE]``; in buffer mode no answer text was sent at all."""
    reply = ScriptedReply("The Eiffel Tower was completed in 1889.")
    with proxy_in_thread(tmp_path, reply, guard=_broken_guard(tmp_path)) as (url, _audit):
        r = _post(url, stream=True, question=question)
    payloads = sse_payloads(r.content)
    assert "[DONE]" not in payloads
    events = [json.loads(p) for p in payloads]
    assert "error" in events[-1] and "AuditError" in events[-1]["error"]["message"]
    assert not any("guardrail" in e for e in events)
    if mode == "buffer":
        assert "1889" not in "".join(
            c["delta"].get("content") or "" for e in events for c in e.get("choices", [])
        )


@pytest.mark.parametrize(
    ("raw", "replaced"),
    [
        ('{"a": "plain text"}', 0),
        ('{"a": "caf\\u00e9"}', 0),
        ('{"a": "x\\ud800y", "b": ["\\u0000"]}', 2),
        ('{"a": "x\ufffey"}', 1),  # a non-character sent as UTF-8, not escaped
        (b'{"a": "x\\udfffy"}', 1),
    ],
)
def test_upstream_json_cleans_every_odd_character(raw, replaced):
    from guardrail.proxy.upstream import upstream_json

    value, count = upstream_json(raw)
    assert count == replaced
    assert not any(c in json.dumps(value, ensure_ascii=False) for c in ("\ud800", "\udfff"))
