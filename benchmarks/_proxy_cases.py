"""The proxy half of the service benchmarks: a fake upstream and the hostile cases for
``guardrail proxy``.

The fake upstream is the scripted OpenAI-compatible app (:mod:`guardrail.proxy.scripted`),
served on 127.0.0.1 by the benchmark; the request's ``model`` names what it answers, so one
upstream plays every case:

* ``small``, ``maximal:SEED``, ``gamed`` — the answers of ``benchmarks.service_fairness``
  (a one-sentence answer, the maximal one, 200 clauses joined by ``"; "``);
* ``tools`` (text and tool calls), ``reasoning`` (a reasoning and a refusal delta),
  ``surrogate`` (a lone surrogate in the text), ``huge`` (a 50 MB answer), ``endless`` (a
  stream that never ends), ``open-line`` (a sentence, then an event whose line never ends),
  ``flood`` (20,000 chunks without punctuation).

Each hostile case posts to a real ``guardrail proxy`` process and checks, besides the status:
that every answered turn has its audit record, and that what the client was shown is exactly
the record's ``final_answer`` — the text the guard let through — so no unchecked fragment
reached it.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from benchmarks._serve import API_KEY, Server
from benchmarks.service_fairness import SMALL, maximal_body
from guardrail.proxy.scripted import ScriptedReply, scripted_upstream

KEY = {"Authorization": f"Bearer {API_KEY}"}
SECRET = "SECRET-REASONING-0f3a"
REFUSAL = "I cannot answer that from the sources."
TEXT = "The city library is open on Saturdays from 10:00 to 14:00."
PREGNANT = "I am pregnant: can I take ibuprofen for back pain?"
#: 200 claims in one "sentence", against a 100 KB context: the gamed work estimate.
GAMED = "; ".join(f"The office number {i} is open on day {i % 28 + 1}" for i in range(200)) + "."
TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@functools.lru_cache(maxsize=4)
def _huge() -> str:
    return ("The library opens at ten and closes at two. " * 1_200_000)[:50_000_000]


def upstream_reply(body: dict[str, Any]) -> ScriptedReply:
    """What the fake upstream answers: chosen by the request's ``model``."""
    kind, _, arg = str(body.get("model", "")).partition(":")
    if kind == "maximal":
        return ScriptedReply(maximal_body(int(arg))["answer"])
    if kind == "gamed":
        return ScriptedReply(GAMED)
    if kind == "tools":
        return ScriptedReply(TEXT, tool_calls=[TOOL_CALL])
    if kind == "reasoning":
        return ScriptedReply(
            TEXT,
            extra_deltas=[{"reasoning_content": SECRET}, {"refusal": REFUSAL}],
            extra_message={"reasoning_content": SECRET},
        )
    if kind == "surrogate":
        return ScriptedReply("The city library is open \ud800on Saturdays.")
    if kind == "huge":
        return ScriptedReply(_huge(), chunks=[])
    if kind == "endless":
        return ScriptedReply("", chunks=["word "], endless=True)
    if kind == "open-line":
        return ScriptedReply(SMALL["answer"] + " ", unterminated=True)
    if kind == "flood":
        return ScriptedReply("", chunks=["word "] * 20_000)
    return ScriptedReply(SMALL["answer"])


def fake_upstream() -> Any:
    """The fake upstream app (serve it with ``guardrail.server.testing.serve_in_thread``)."""
    return scripted_upstream(upstream_reply)


def chat(
    model: str,
    *,
    question: str = SMALL["question"],
    contexts: list[str] | None = None,
    system: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A chat-completions request body; contexts in ``guardrail.contexts`` when given."""
    messages = [{"role": "system", "content": system}] if system is not None else []
    messages.append({"role": "user", "content": question})
    body: dict[str, Any] = {"model": model, "messages": messages, **extra}
    if contexts is not None:
        body["guardrail"] = {"contexts": contexts}
    return body


@dataclass
class Reply:
    """A proxied reply as the client saw it: status, audit id, the text shown, the summary,
    the raw body and the guard's time (``Server-Timing``, non-streamed only)."""

    status: int
    audit_id: str | None
    shown: str | None
    summary: dict[str, Any]
    raw: str
    guard_ms: float | None = None


def send(server: Server, body: dict[str, Any] | bytes, timeout: float = 600) -> Reply:
    """Post ``body`` to the proxy, streamed or not as the body says."""
    url = f"{server.url}/v1/chat/completions"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {**KEY, "content-type": "application/json"}
    streamed = isinstance(body, dict) and body.get("stream") is True
    if not streamed:
        r = httpx.post(url, content=content, headers=headers, timeout=timeout)
        data = r.json() if r.headers.get("content-type", "").startswith("application") else {}
        summary = data.get("guardrail") or {}
        choices = data.get("choices") or [{}]
        message = choices[0].get("message") or {}
        shown = message.get("content") or message.get("refusal")
        timing = r.headers.get("server-timing", "")
        guard = [p for p in timing.split(",") if p.strip().startswith("guard;dur=")]
        guard_ms = float(guard[0].split("=")[1]) if guard else None
        return Reply(r.status_code, summary.get("audit_id"), shown, summary, r.text, guard_ms)
    with httpx.stream("POST", url, content=content, headers=headers, timeout=timeout) as r:
        raw = b"".join(r.iter_bytes()).decode("utf-8", "replace")
        audit_id = r.headers.get("x-guardrail-audit-id")
        status = r.status_code
    payloads = [
        line[5:].strip()
        for line in raw.split("\n")
        if line.startswith("data:") and line[5:].strip()
    ]
    events = [json.loads(p) for p in payloads if p != "[DONE]"]
    shown = "".join(
        (c.get("delta") or {}).get("content") or "" for e in events for c in e.get("choices") or []
    )
    summary = next((e["guardrail"] for e in reversed(events) if "guardrail" in e), {})
    if payloads[-1:] != ["[DONE]"]:
        summary = {**summary, "stream_error": events[-1] if events else "empty stream"}
    return Reply(status, audit_id, shown, summary, raw)


@dataclass
class Checked:
    status: str
    ok: bool
    note: str
    guard_ms: float | None = None


def audited(server: Server, reply: Reply, expected: str) -> Checked:
    """``expected`` when the reply is a 200 with its audit record and the client was shown
    exactly the record's ``final_answer``; otherwise what went wrong."""
    if reply.status != 200:
        return Checked(str(reply.status), False, reply.raw[:80], reply.guard_ms)
    if "stream_error" in reply.summary:
        return Checked("200, stream error", False, str(reply.summary["stream_error"])[:80])
    deadline = time.monotonic() + 10
    found: list[dict[str, Any]] = []
    while not found and time.monotonic() < deadline:
        found = [r for r in server.audited_turns() if r.get("audit_id") == reply.audit_id]
        if not found:
            time.sleep(0.1)
    if not found:
        return Checked("200, no audit record", False, "", reply.guard_ms)
    record = found[0]
    unchecked = reply.shown is not None and reply.shown != record.get("final_answer")
    if unchecked:
        return Checked("200, unchecked text", False, (reply.shown or "")[:60], reply.guard_ms)
    decision = reply.summary.get("decision")
    reason = str(reply.summary.get("reason") or "")
    note = f"{decision}; {reason[-70:]}" if reason else str(decision)
    return Checked(expected, True, note, reply.guard_ms)


Case = tuple[str, str, Callable[[Server], Checked]]


def _answered(
    name: str,
    expected: str,
    model: str,
    test: Callable[[Reply], bool] | None = None,
    **request: Any,
) -> Case:
    """A case answered 200 with its record and only checked text shown; ``test`` checks the
    reply further. ``request``: :func:`chat` arguments (contexts default to the small one)."""
    request.setdefault("contexts", SMALL["contexts"])

    def run(server: Server) -> Checked:
        reply = send(server, chat(model, **request))
        checked = audited(server, reply, expected)
        if checked.ok and test is not None and not test(reply):
            return Checked(f"{expected}?", False, checked.note, checked.guard_ms)
        return checked

    return name, expected, run


def _refused(name: str, status: int, body: Callable[[], dict[str, Any]]) -> Case:
    def run(server: Server) -> Checked:
        reply = send(server, body())
        return Checked(str(reply.status), reply.status == status, reply.raw[:80])

    return name, str(status), run


def _not_read(name: str, status: int, model: str, flag: str) -> Case:
    """A reply the proxy refuses to read: ``status`` naming ``flag``, and a failed-turn
    record that names it too."""

    def run(server: Server) -> Checked:
        before = len(server.records())
        reply = send(server, chat(model, contexts=SMALL["contexts"]))
        if reply.status != status or flag not in reply.raw:
            return Checked(str(reply.status), False, reply.raw[:80], reply.guard_ms)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            new = server.records()[before:]
            if any(flag in str(r.get("error")) for r in new):
                return Checked(f"{status}+audit", True, flag, reply.guard_ms)
            time.sleep(0.1)
        return Checked(f"{status}, no audit record", False, "", reply.guard_ms)

    return name, f"{status}+audit", run


def _cut(reply: Reply) -> bool:
    return "cut" in str(reply.summary.get("reason"))


CTX = "<context>"
BIG_CONTEXT = ("The office number 7 is open on day 3. " * 2_700)[:100_000]

#: (case, expected, run) — each posts to the proxy and checks the reply and its record.
PROXY_CASES: list[Case] = [
    _answered(
        "180 KB system message of unclosed <context> tags",
        "200+audit",
        "small",
        system=CTX * 20_000,
        contexts=None,
    ),
    _answered(
        "360 KB system message of unclosed <context> tags",
        "200+audit",
        "small",
        system=CTX * 40_000,
        contexts=None,
    ),
    _refused("4 MB body", 413, lambda: chat("small", question="x" * 4_200_000)),
    _answered(
        "text beside tool calls, not streamed",
        "200 scored+audit",
        "tools",
        lambda r: r.summary.get("score") is not None,
    ),
    _answered(
        "reasoning and refusal deltas, streamed",
        "200 withheld+audit",
        "reasoning",
        lambda r: SECRET not in r.raw and REFUSAL in (r.shown or ""),
        stream=True,
    ),
    _answered(
        "reasoning field, not streamed",
        "200 withheld+audit",
        "reasoning",
        lambda r: SECRET not in r.raw,
    ),
    _refused('"n": 2.0 with stream', 400, lambda: chat("small", n=2.0, stream=True)),
    _refused('"n": "2" with stream', 400, lambda: chat("small", n="2", stream=True)),
    _refused('"n": 100, not streamed', 400, lambda: chat("small", n=100)),
    _answered("lone surrogate from the upstream, not streamed", "200+audit", "surrogate"),
    _answered("lone surrogate from the upstream, streamed", "200+audit", "surrogate", stream=True),
    _not_read("50 MB answer from the upstream, not streamed", 502, "huge", "--max-reply-bytes"),
    _answered("endless stream from the upstream", "200 cut+audit", "endless", _cut, stream=True),
    _answered(
        "one stream line that never ends",
        "200 cut+audit",
        "open-line",
        lambda r: "--max-event-bytes" in str(r.summary.get("reason")),
        stream=True,
    ),
    _answered(
        "20,000 chunks without punctuation, hold mode",
        "200+audit",
        "flood",
        question=PREGNANT,
        stream=True,
    ),
    _answered(
        "200 clauses in one sentence against 100 KB (gamed work estimate)",
        "200 budget+audit",
        "gamed",
        lambda r: "--max-work" in str(r.summary.get("reason")),
        contexts=[BIG_CONTEXT],
    ),
]
