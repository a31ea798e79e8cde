"""Deliver escalated cases to an HTTP endpoint, signed, at least once.

Each case is POSTed as JSON (the :class:`~guardrail.models.EscalationCase` dump) with

* ``X-Guardrail-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the secret>``
  (receivers check it with :func:`verify_signature`, in constant time);
* ``Idempotency-Key: <case_id>`` so a receiver can drop the duplicates at-least-once implies.

The case is written to a durable :class:`~guardrail.queues.outbox.Outbox` first and marked
delivered only after a 2xx. Timeouts, connection errors, 429 and 5xx are retried with
exponential backoff (``Retry-After`` honoured up to the cap); other 4xx are not retried. A case
that could not be delivered stays pending in the outbox and :meth:`WebhookSink.redeliver`
tries again later; :meth:`WebhookSink.send` then raises :class:`WebhookDeliveryError` (an
:class:`~guardrail.exceptions.EscalationError`) so the caller knows delivery is outstanding.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guardrail.exceptions import ConfigError, EscalationError
from guardrail.models import EscalationCase
from guardrail.queues.outbox import Outbox

if TYPE_CHECKING:
    import httpx  # loaded on the first delivery: a guard without a webhook never needs it

__all__ = [
    "SIGNATURE_HEADER",
    "Redelivery",
    "WebhookDeliveryError",
    "WebhookSink",
    "sign",
    "verify_signature",
]

SIGNATURE_HEADER = "X-Guardrail-Signature"
_RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


def _key(secret: str | bytes) -> bytes:
    return secret.encode("utf-8") if isinstance(secret, str) else secret


def sign(body: bytes, secret: str | bytes) -> str:
    """The signature header value for ``body``: ``sha256=<hex digest>``."""
    return "sha256=" + hmac.new(_key(secret), body, hashlib.sha256).hexdigest()


def verify_signature(body: bytes, header: str | None, secret: str | bytes) -> bool:
    """True when ``header`` is the signature of ``body`` under ``secret`` (constant time)."""
    if not header:
        return False
    return hmac.compare_digest(sign(body, secret), header.strip())


class WebhookDeliveryError(EscalationError):
    """Delivery failed for now; the case is safe in the outbox and will be redelivered."""

    def __init__(self, message: str, *, case_id: str, attempts: int) -> None:
        super().__init__(message)
        self.case_id = case_id
        self.attempts = attempts


@dataclass(frozen=True)
class Redelivery:
    """What one :meth:`WebhookSink.redeliver` pass did."""

    delivered: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)


class WebhookSink:
    """An :class:`~guardrail.queues.base.EscalationSink` that POSTs cases to ``url``.

    Pass ``client`` to reuse a connection pool (or a ``MockTransport`` in tests); without one
    each delivery opens a short-lived client with ``timeout_s``. ``sleep`` and ``rng`` are
    injectable so tests can check the backoff schedule without waiting.
    """

    def __init__(
        self,
        url: str,
        secret: str | bytes,
        *,
        outbox: Outbox,
        client: httpx.AsyncClient | None = None,
        max_attempts: int = 5,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        timeout_s: float = 10.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"webhook url must start with http:// or https://, got {url!r}")
        if not secret:
            raise ConfigError("webhook secret must not be empty")
        if max_attempts < 1:
            raise ConfigError("max_attempts must be >= 1")
        self.url = url
        self._secret = _key(secret)
        self.outbox = outbox
        self._client = client
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.timeout_s = timeout_s
        self._sleep = sleep
        self._rng = rng or random.Random()

    @property
    def name(self) -> str:
        return f"webhook:{self.url}"

    def __repr__(self) -> str:
        return f"WebhookSink({self.url!r})"

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try number ``attempt`` (2, 3, ...): capped exponential, with
        up to 10 % jitter; a server's ``Retry-After`` wins when it is longer (still capped)."""
        base: float = min(self.backoff_max_s, self.backoff_base_s * 2.0 ** (attempt - 2))
        delay = base * (1.0 + 0.1 * self._rng.random())
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, self.backoff_max_s)

    def _request_parts(self, case: EscalationCase) -> tuple[bytes, dict[str, str]]:
        body = case.model_dump_json().encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(body, self._secret),
            "Idempotency-Key": case.case_id,
            "User-Agent": "guardrail-webhook/1",
        }
        return body, headers

    async def _post(self, body: bytes, headers: dict[str, str]) -> httpx.Response:
        import httpx

        if self._client is not None:
            return await self._client.post(self.url, content=body, headers=headers)
        async with httpx.AsyncClient(timeout=self.timeout_s) as client:
            return await client.post(self.url, content=body, headers=headers)

    async def _record(self, case_id: str, error: str | None) -> None:
        await asyncio.to_thread(self.outbox.record_attempt, self.url, case_id, error)

    async def _deliver(self, case: EscalationCase) -> None:
        import httpx

        body, headers = self._request_parts(case)
        retry_after: float | None = None
        error = "not attempted"
        attempt = 0
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1:
                await self._sleep(self.backoff(attempt, retry_after))
            retry_after = None
            retryable = True
            try:
                response = await self._post(body, headers)
            except httpx.TimeoutException as exc:
                error = f"timeout: {type(exc).__name__}"
            except httpx.TransportError as exc:
                error = f"connection error: {type(exc).__name__}: {exc}"
            else:
                if response.is_success:
                    await self._record(case.case_id, None)
                    return
                error = f"HTTP {response.status_code}"
                retryable = response.status_code in _RETRYABLE_STATUS
                retry_after = _retry_after(response)
            await self._record(case.case_id, error)
            if not retryable:
                break
        raise WebhookDeliveryError(
            f"{self.name}: case {case.case_id} not delivered after {attempt} attempt(s)"
            f" ({error}); kept in the outbox for redelivery",
            case_id=case.case_id,
            attempts=attempt,
        )

    async def send(self, case: EscalationCase) -> None:
        """Store ``case`` in the outbox, then deliver it (idempotent on ``case_id``)."""
        entry = await asyncio.to_thread(self.outbox.put, self.url, case)
        if entry.state == "delivered":
            return
        await self._deliver(entry.case)

    async def pending(self) -> list[EscalationCase]:
        """Cases for this URL that are still waiting for an acknowledgement."""
        entries = await asyncio.to_thread(self.outbox.pending, self.url)
        return [e.case for e in entries]

    async def redeliver(self) -> Redelivery:
        """Try every pending case for this URL once more (each with the full retry budget)."""
        report = Redelivery()
        for entry in await asyncio.to_thread(self.outbox.pending, self.url):
            try:
                await self._deliver(entry.case)
            except WebhookDeliveryError:
                report.pending.append(entry.case.case_id)
            else:
                report.delivered.append(entry.case.case_id)
        return report


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return None  # the HTTP-date form is rare for webhooks; fall back to our backoff
    return max(0.0, seconds)
