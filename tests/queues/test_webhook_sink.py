"""The webhook sink: signed POSTs, retries, durable outbox, redelivery, a real loopback server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from guardrail.exceptions import ConfigError, EscalationError
from guardrail.models import EscalationCase
from guardrail.queues import SQLiteOutbox, WebhookDeliveryError, WebhookSink, verify_signature
from guardrail.queues.webhook import sign

SECRET = "s3cret"
URL = "https://hooks.example.test/guardrail"


class Recorder:
    """A MockTransport handler answering from a script of status codes (or exceptions)."""

    def __init__(self, *script: int | Exception) -> None:
        self.script = list(script)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.script.pop(0) if self.script else 200
        if isinstance(step, Exception):
            raise step
        headers = {"Retry-After": "7"} if step == 429 else {}
        return httpx.Response(step, headers=headers)


def make_sink(tmp_path, handler, **kw) -> tuple[WebhookSink, list[float]]:
    sleeps: list[float] = []

    async def fake_sleep(s: float) -> None:
        sleeps.append(s)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    sink = WebhookSink(
        URL,
        SECRET,
        outbox=SQLiteOutbox(tmp_path / "outbox.sqlite3"),
        client=client,
        sleep=fake_sleep,
        backoff_base_s=0.5,
        backoff_max_s=30.0,
        **kw,
    )
    return sink, sleeps


async def test_post_carries_signed_body_and_idempotency_key(tmp_path, make_case):
    """The body is the case JSON, signed with HMAC-SHA256, keyed by case_id."""
    rec = Recorder(200)
    sink, _ = make_sink(tmp_path, rec)
    case = make_case("abc")
    await sink.send(case)
    (req,) = rec.requests
    body = req.content
    assert req.method == "POST" and str(req.url) == URL
    assert EscalationCase.model_validate_json(body) == case
    assert req.headers["Idempotency-Key"] == "abc"
    assert req.headers["Content-Type"] == "application/json"
    assert verify_signature(body, req.headers["X-Guardrail-Signature"], SECRET)
    assert not verify_signature(body, req.headers["X-Guardrail-Signature"], "wrong")
    assert not verify_signature(body + b" ", req.headers["X-Guardrail-Signature"], SECRET)
    assert await sink.pending() == []


async def test_retries_5xx_429_and_timeouts_with_backoff(tmp_path, make_case):
    """503, timeout, 429 then 200: four tries, exponential waits, Retry-After honoured."""
    rec = Recorder(503, httpx.ReadTimeout("slow"), 429, 200)
    sink, sleeps = make_sink(tmp_path, rec)
    await sink.send(make_case("r"))
    assert len(rec.requests) == 4
    assert 0.5 <= sleeps[0] <= 0.55 and 1.0 <= sleeps[1] <= 1.1
    assert sleeps[2] == 7.0  # Retry-After (7 s) beats the 2 s backoff
    (entry,) = sink.outbox.list()  # type: ignore[attr-defined]
    assert entry.state == "delivered" and entry.attempts == 4


async def test_client_errors_are_not_retried_and_stay_pending(tmp_path, make_case):
    """A 400 fails at once; the case stays in the outbox with the error recorded."""
    rec = Recorder(400)
    sink, sleeps = make_sink(tmp_path, rec)
    with pytest.raises(WebhookDeliveryError, match="HTTP 400") as info:
        await sink.send(make_case("bad"))
    assert isinstance(info.value, EscalationError) and info.value.attempts == 1
    assert len(rec.requests) == 1 and sleeps == []
    (entry,) = sink.outbox.pending()
    assert entry.case.case_id == "bad" and entry.last_error == "HTTP 400"


async def test_undeliverable_case_is_kept_then_redelivered(tmp_path, make_case):
    """After max_attempts failures the case is pending; redeliver() sends it once up."""
    rec = Recorder(*([httpx.ConnectError("refused")] * 3))
    sink, _ = make_sink(tmp_path, rec, max_attempts=3)
    with pytest.raises(WebhookDeliveryError, match="kept in the outbox"):
        await sink.send(make_case("p1"))
    assert [c.case_id for c in await sink.pending()] == ["p1"]
    assert "connection error" in (sink.outbox.pending()[0].last_error or "")

    report = await sink.redeliver()  # the script is exhausted: the receiver now answers 200
    assert report.delivered == ["p1"] and report.pending == []
    assert await sink.pending() == []
    assert rec.requests[-1].headers["Idempotency-Key"] == "p1"


async def test_outbox_survives_a_new_sink_instance(tmp_path, make_case):
    """A pending case is still there for a sink built later on the same file (a restart)."""
    sink, _ = make_sink(tmp_path, Recorder(500), max_attempts=1)
    with pytest.raises(WebhookDeliveryError):
        await sink.send(make_case("survivor"))
    rec = Recorder(204)
    later, _ = make_sink(tmp_path, rec)
    assert (await later.redeliver()).delivered == ["survivor"]
    assert len(rec.requests) == 1


async def test_send_twice_delivers_once(tmp_path, make_case):
    """A delivered case sent again is not posted again."""
    rec = Recorder()
    sink, _ = make_sink(tmp_path, rec)
    await sink.send(make_case("once"))
    await sink.send(make_case("once"))
    assert len(rec.requests) == 1


async def test_outbox_write_happens_before_delivery(tmp_path, make_case):
    """While the POST is in flight, the case is already durable in the outbox."""
    seen_pending: list[list[str]] = []
    outbox = SQLiteOutbox(tmp_path / "o.sqlite3")

    def handler(request: httpx.Request) -> httpx.Response:
        seen_pending.append([e.case.case_id for e in outbox.pending()])
        return httpx.Response(200)

    sink = WebhookSink(
        URL, SECRET, outbox=outbox, client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    await sink.send(make_case("durable"))
    assert seen_pending == [["durable"]] and outbox.pending() == []


def test_bad_configuration_is_rejected(tmp_path):
    """Non-HTTP URLs, empty secrets and zero attempts are ConfigErrors."""
    outbox = SQLiteOutbox(tmp_path / "unused.sqlite3")
    with pytest.raises(ConfigError, match="http"):
        WebhookSink("ftp://x", SECRET, outbox=outbox)
    with pytest.raises(ConfigError, match="secret"):
        WebhookSink(URL, "", outbox=outbox)
    with pytest.raises(ConfigError, match="max_attempts"):
        WebhookSink(URL, SECRET, outbox=outbox, max_attempts=0)


def test_signature_format():
    """The header is 'sha256=' plus the 64-hex-digit HMAC."""
    value = sign(b"{}", "k")
    assert value.startswith("sha256=") and len(value) == 7 + 64
    assert not verify_signature(b"{}", None, "k")


# --- a real HTTP server on loopback ---------------------------------------------------------


class _Receiver(BaseHTTPRequestHandler):
    received: list[tuple[bytes, dict[str, str], bool]]
    fail_first: int

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        ok = verify_signature(body, self.headers.get("X-Guardrail-Signature"), SECRET)
        type(self).received.append((body, dict(self.headers.items()), ok))
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            status = 503
        else:
            status = 200 if ok else 401
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[_Receiver]]]:
    handler = type("Receiver", (_Receiver,), {"received": [], "fail_first": 1})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_real_loopback_server_verifies_signature(tmp_path, make_case, receiver):
    """A real HTTP server gets a 503 first, then a retried POST whose signature checks out."""
    url, handler = receiver
    sink = WebhookSink(
        url, SECRET, outbox=SQLiteOutbox(tmp_path / "o.sqlite3"), backoff_base_s=0.01
    )
    case = make_case("live")
    await sink.send(case)
    assert len(handler.received) == 2
    for body, headers, ok in handler.received:
        assert ok
        assert json.loads(body)["case_id"] == "live"
        assert headers["Idempotency-Key"] == "live"
    assert await sink.pending() == []


async def test_real_server_rejects_wrong_secret(tmp_path, make_case, receiver):
    """Signed with the wrong secret, the receiver answers 401 and the case stays pending."""
    url, handler = receiver
    handler.fail_first = 0
    sink = WebhookSink(url, "not-the-secret", outbox=SQLiteOutbox(tmp_path / "o.sqlite3"))
    with pytest.raises(WebhookDeliveryError, match="HTTP 401"):
        await sink.send(make_case("forged"))
    assert handler.received[0][2] is False
    assert [c.case_id for c in await sink.pending()] == ["forged"]
