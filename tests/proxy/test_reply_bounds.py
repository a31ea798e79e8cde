"""Bounds on what one proxied request may cost before the guard reads anything: how many
choices it may ask the upstream for, and how many bytes of a non-streamed reply are read; and
what an error reply may say about the proxy's own files.

Scripted upstream and proxy on 127.0.0.1, in this process."""

from __future__ import annotations

import json
from typing import Any

import httpx

from guardrail.audit.log import AuditLog
from guardrail.audit.record import AuditRecord
from guardrail.exceptions import AuditError
from guardrail.guard import Guard
from guardrail.policy import parse_policy
from guardrail.proxy.scripted import ScriptedReply
from guardrail.serving.limits import UpstreamLimits
from tests.proxy.conftest import proxy_in_thread
from tests.streaming.conftest import GENERAL_CTX, GENERAL_Q, POLICY_YAML, records


def _body(**extra: Any) -> dict[str, Any]:
    system = "".join(f"<context>{c}</context>" for c in GENERAL_CTX)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": GENERAL_Q}]
    return {"model": "m", "messages": messages, **extra}


def _post(url: str, **extra: Any) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/completions", json=_body(**extra), timeout=60)


def test_more_choices_than_the_bound_are_refused_before_the_upstream_is_asked(tmp_path):
    """Every choice is scored, so ``n`` is bounded: over ``--max-choices`` is a 400 naming
    the flag, and nothing was asked of the upstream or scored."""
    reply = ScriptedReply("The Eiffel Tower was completed in 1889.")
    bounds = UpstreamLimits(max_choices=2)
    with proxy_in_thread(tmp_path, reply, upstream_limits=bounds) as (url, audit):
        refused = _post(url, n=3)
        allowed = _post(url, n=2)
    assert refused.status_code == 400, refused.text
    assert "--max-choices" in refused.json()["error"]["message"]
    assert allowed.status_code == 200, allowed.text
    # the allowed request's two choices were scored; the refused one reached nothing
    assert len(records(audit)) == 2


def test_a_reply_over_the_byte_bound_is_not_read_and_is_recorded(tmp_path):
    """A non-streamed reply larger than ``--max-reply-bytes`` is not read into memory: the
    client gets a 502 naming the flag, and the turn has its record."""
    answer = "The Eiffel Tower was completed in 1889 and is 330 metres tall. " * 2_000
    bounds = UpstreamLimits(max_reply_bytes=20_000)
    with proxy_in_thread(tmp_path, ScriptedReply(answer), upstream_limits=bounds) as (
        url,
        audit,
    ):
        r = _post(url)
    assert r.status_code == 502, r.text
    assert "--max-reply-bytes" in r.json()["error"]["message"]
    assert "1889" not in r.text
    (record,) = records(audit)
    assert record["event_name"] == "turn_failed" and record["final_answer"] is None
    assert "--max-reply-bytes" in record["error"]


def test_a_reply_within_the_byte_bound_is_answered(tmp_path):
    answer = "The Eiffel Tower was completed in 1889."
    bounds = UpstreamLimits(max_reply_bytes=20_000)
    with proxy_in_thread(tmp_path, ScriptedReply(answer), upstream_limits=bounds) as (
        url,
        _audit,
    ):
        r = _post(url)
    assert r.status_code == 200, r.text
    assert "1889" in r.json()["choices"][0]["message"]["content"]


class _FullDisk(AuditLog):
    """An audit log whose appends fail with the message a real write error carries: its path."""

    def append(self, record: AuditRecord) -> AuditRecord:
        raise AuditError(f"cannot write audit log {self.path}: No space left on device")


def test_a_guard_failure_does_not_tell_the_client_the_proxys_paths(tmp_path):
    """The client learns which part failed (``AuditError``), not where the proxy keeps its
    files; streamed or not."""
    guard = Guard(parse_policy(POLICY_YAML), audit=_FullDisk(tmp_path / "audit.jsonl"))
    reply = ScriptedReply("The Eiffel Tower was completed in 1889.")
    with proxy_in_thread(tmp_path, reply, guard=guard) as (url, _audit):
        plain = _post(url)
        streamed = _post(url, stream=True)
    assert plain.status_code == 503
    assert "AuditError" in plain.json()["error"]["message"]
    for text in (plain.text, streamed.text):
        assert str(tmp_path) not in text and "audit.jsonl" not in text
    assert "AuditError" in streamed.text
    assert json.dumps(str(tmp_path))[1:-1] not in streamed.text
