"""One turn pipeline, many drivers: check, a stream in each mode, and the proxy (streamed and
not) give the same decision, score, topics, actions and audit record for the same answer.

The proxy runs for real: a scripted OpenAI-compatible upstream and the proxy app, each served
by uvicorn on 127.0.0.1, with the ``openai`` SDK as the client.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from guardrail.actions.escalate import Escalator
from guardrail.audit.log import AuditLog
from guardrail.guard import Guard
from guardrail.policy import parse_policy
from guardrail.proxy import Upstream, create_proxy_app
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream
from guardrail.queues import SQLiteQueue
from guardrail.queues.jsonl import JSONLSink
from guardrail.server.testing import serve_in_thread
from tests.streaming.conftest import (
    GENERAL_CTX,
    GENERAL_Q,
    PREGNANCY_CTX,
    PREGNANCY_Q,
    SAFE,
    UNSAFE,
    records,
    words,
)

POLICY = """
name: drivers
scorer: {judge: local}
classifier: {confidence_floor: 0.5, default_topic: general}
topics:
  - name: general
    threshold: 0.5
    stream: MODE
    examples:
      - How do I reset my password?
      - When does the office open?
    on_flag: {highlight: true}
  - name: pregnancy
    sensitivity: sensitive
    threshold: 0.3
    stream: MODE
    keywords: [pregnant, pregnancy]
    on_flag:
      escalate: {queue: clinical-review, message: "A clinician will check this."}
"""

#: (question, answer, contexts): a faithful answer, an unsupported one on a sensitive topic,
#: and a faithful answer on the general topic.
CASES = {
    "faithful-sensitive": (PREGNANCY_Q, SAFE.strip(), PREGNANCY_CTX),
    "unsupported-sensitive": (PREGNANCY_Q, (UNSAFE + SAFE).strip(), PREGNANCY_CTX),
    "faithful-general": (GENERAL_Q, "It was completed in 1889.", GENERAL_CTX),
}
MODES = ("hold", "release", "buffer")


def _guard(directory: Path, mode: str, policy: str = POLICY) -> Guard:
    directory.mkdir(parents=True, exist_ok=True)
    escalator = Escalator(
        default=SQLiteQueue(directory / "review.sqlite3"),
        fallback=JSONLSink(directory / "fallback.jsonl"),
    )
    return Guard(
        parse_policy(policy.replace("MODE", mode)),
        escalator=escalator,
        audit=AuditLog(directory / "audit.jsonl"),
    )


def _decision(d: dict[str, Any]) -> tuple[Any, ...]:
    return (d["action"], sorted(d["actions"]), d["flagged"], d["score"], d["topic"], d["queue"])


def _record_view(record: dict[str, Any]) -> dict[str, Any]:
    """What must agree between drivers (the reason may say how the answer travelled)."""
    return {
        "decision": _decision(record["decision"]),
        "topics": [(t["label"], t["source"]) for t in record["topics"]],
        "score": record["score"],
        "flagged_spans": record["flagged_spans"],
        "answer": record["answer"],
    }


@contextlib.contextmanager
def _proxy(guard: Guard, reply: list[ScriptedReply]) -> Iterator[openai.OpenAI]:
    upstream_app = scripted_upstream(lambda body: reply[0])
    with serve_in_thread(upstream_app) as upstream_url:  # type: ignore[arg-type]
        app = create_proxy_app(guard=guard, upstream=Upstream(f"{upstream_url}/v1"))
        with serve_in_thread(app) as url:  # type: ignore[arg-type]
            yield openai.OpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0)


def _drive_all(
    tmp_path: Path, mode: str, case: str, policy: str = POLICY
) -> dict[str, dict[str, Any]]:
    """The one audit record each driver left for the same answer."""
    question, answer, contexts = CASES[case]
    seen: dict[str, dict[str, Any]] = {}

    with _guard(tmp_path / "check", mode, policy) as guard:
        guard.check(question, answer, contexts)
    [seen["check"]] = records(tmp_path / "check" / "audit.jsonl")

    with _guard(tmp_path / "stream", mode, policy) as guard:
        stream = guard.stream(question, iter(words(answer)), contexts)
        "".join(stream)
    [seen["stream"]] = records(tmp_path / "stream" / "audit.jsonl")

    reply = [ScriptedReply(answer)]
    messages: Any = [
        {"role": "system", "content": "".join(f"<context>{c}</context>" for c in contexts)},
        {"role": "user", "content": question},
    ]
    guard = _guard(tmp_path / "proxy", mode, policy)
    with _proxy(guard, reply) as client:
        client.chat.completions.create(model="m", messages=messages)
        with client.chat.completions.create(model="m", messages=messages, stream=True) as chunks:
            for _ in chunks:
                pass
    proxied = records(tmp_path / "proxy" / "audit.jsonl")
    assert len(proxied) == 2, proxied
    seen["proxy"], seen["proxy-stream"] = proxied
    return seen


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_driver_records_the_same_turn(tmp_path: Path, mode: str, case: str) -> None:
    """check, a stream and the proxy (plain and streamed) agree on the decision, the score,
    the topics, the actions and the audit record's content for one answer."""
    seen = _drive_all(tmp_path, mode, case)
    views = {driver: _record_view(record) for driver, record in seen.items()}
    expected = views["check"]
    for driver, view in views.items():
        if mode == "hold" and driver.endswith("stream") and case == "unsupported-sensitive":
            # A held stream stops the upstream at the first sentence that fails its check:
            # the rest of the answer is never produced, so the record holds (and the spans
            # index) the part that was; the decision is the same.
            full = CASES[case][1]
            assert full.startswith(view["answer"].strip()) and view["answer"].strip() != full
            view = {**view, "answer": expected["answer"], "flagged_spans": []}
            compared = {**expected, "flagged_spans": []}
        else:
            compared = expected
        assert view == compared, f"{driver} ({mode}) differs from check: {view} != {compared}"
    if case == "unsupported-sensitive":
        assert expected["decision"][0] == "escalate"
    else:
        assert expected["decision"][0] == "pass"


def test_reasons_say_what_happened_to_this_turn(tmp_path: Path) -> None:
    """A policy that asks for a regeneration: each driver says why it could not have one,
    none says regeneration was 'exhausted', and only ``check`` mentions wrapping."""
    policy = POLICY.replace(
        "    on_flag:\n      escalate:",
        "    on_flag:\n      regenerate: {max_attempts: 1}\n      escalate:",
    )
    assert "regenerate" in policy
    seen = _drive_all(tmp_path, "release", "unsupported-sensitive", policy)
    expected = {
        "check": "wrap it",
        "stream": "the answer was streamed",
        "proxy": "the proxy does not ask the model again",
        "proxy-stream": "the answer was streamed",
    }
    for driver, record in seen.items():
        reason = record["decision"]["reason"]
        assert record["decision"]["action"] == "escalate", (driver, reason)
        assert "exhausted" not in reason, (driver, reason)
        assert expected[driver] in reason, (driver, reason)
        if driver != "check":
            assert "wrap it" not in reason, (driver, reason)


def test_a_streamed_result_has_the_fields_a_checked_one_has(tmp_path: Path) -> None:
    """attempts and scored_answer are filled whatever the driver."""
    question, answer, contexts = CASES["unsupported-sensitive"]
    with _guard(tmp_path, "release") as guard:
        checked = guard.check(question, answer, contexts)
        stream = guard.stream(question, iter(words(answer)), contexts)
        "".join(stream)
        streamed = stream.result
    assert streamed is not None
    assert (streamed.attempts, streamed.scored_answer) == (1, answer)
    assert (checked.attempts, checked.scored_answer) == (1, answer)


def test_an_empty_answer_follows_on_error_whatever_the_driver(tmp_path: Path) -> None:
    """An empty answer is no refusal the user can read: check, a stream and the proxy all
    leave it to the topic's ``on_error`` rule (a sensitive topic fails closed), none passes."""
    question, _, contexts = CASES["faithful-sensitive"]
    actions: dict[str, str] = {}
    with _guard(tmp_path / "check", "release") as guard:
        actions["check"] = guard.check(question, "", contexts).decision.action
    with _guard(tmp_path / "stream", "release") as guard:
        stream = guard.stream(question, iter([]), contexts)
        "".join(stream)
        assert stream.result is not None
        actions["stream"] = stream.result.decision.action
    messages: Any = [
        {"role": "system", "content": "".join(f"<context>{c}</context>" for c in contexts)},
        {"role": "user", "content": question},
    ]
    guard = _guard(tmp_path / "proxy", "release")
    with _proxy(guard, [ScriptedReply("")]) as client:
        client.chat.completions.create(model="m", messages=messages)
    [record] = records(tmp_path / "proxy" / "audit.jsonl")
    actions["proxy"] = record["decision"]["action"]
    assert set(actions.values()) == {actions["check"]} and actions["check"] != "pass", actions
