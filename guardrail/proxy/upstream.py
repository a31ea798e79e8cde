"""The upstream OpenAI-compatible server, reached with ``httpx``.

httpx because the project already depends on it (webhooks, tests) and it streams a response
body line by line with time-outs per read, which is all the proxy needs from a client. Text
that cannot be stored (lone surrogates, NUL, non-characters) is replaced with U+FFFD in every
JSON the upstream sends (:func:`upstream_json`), as ``serve`` does with a request. Every
failure becomes an :class:`UpstreamError` carrying the HTTP status the proxy answers with:

* the upstream answered 4xx: the same status (the client's request was wrong, e.g. an unknown
  model), ``Retry-After`` kept on 429;
* the upstream answered 5xx, or could not be reached: 502 Bad Gateway;
* the upstream did not answer in time: 504 Gateway Timeout.

The upstream's error body is never passed on: an upstream may echo the request's headers (the
key) or its messages, and the error reaches the client, the audit record and span attributes.
The proxy answers with an error of OpenAI's shape whose message names the upstream's status
and a redacted summary (:mod:`guardrail.error_bodies`), keeping the body's ``type``, ``code``
and ``param`` only when each is a plain identifier. A transport failure is named by its kind
(``ConnectError``, ``ReadTimeout``), never by its text, which may hold internal addresses.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from guardrail.error_bodies import summarise
from guardrail.exceptions import GuardrailError
from guardrail.proxy.sse import sse_data
from guardrail.sanitize import clean_json

__all__ = [
    "Upstream",
    "UpstreamError",
    "UpstreamStream",
    "guard_failure",
    "summarised_error",
    "upstream_json",
]


class UpstreamError(GuardrailError):
    """The upstream failed; ``status`` is what the proxy answers, ``body`` the error body."""

    def __init__(
        self, status: int, message: str, *, body: Any = None, headers: Mapping[str, str] = {}
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body if body is not None else error_body(message, "upstream_error", status)
        self.headers = dict(headers)


def error_body(message: str, kind: str, code: int | str | None = None) -> dict[str, Any]:
    """An error in the shape OpenAI's API uses (the SDK shows ``message``)."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def guard_failure(exc: BaseException) -> str:
    """What a client is told when the guard itself failed on its turn: which part failed,
    never the exception's text (it can name the proxy's files or hold a passage); the
    proxy's log has the whole error."""
    return (
        f"the guard failed ({type(exc).__name__}) and the turn was not answered; "
        "the proxy's log has the details"
    )


@dataclass
class UpstreamStream:
    """An open streamed response: its ``data:`` payloads (``[DONE]`` ends it), then closed."""

    response: httpx.Response

    async def events(self, max_event_bytes: int) -> AsyncIterator[str]:
        """Each SSE ``data:`` payload as the upstream sent it (its exact text, decoded as
        UTF-8); :class:`~guardrail.proxy.sse.EventTooLarge` once a line or an event is over
        ``max_event_bytes`` (the rest is not read)."""
        try:
            async for payload in sse_data(self.response.aiter_bytes(), max_event_bytes):
                yield payload
        except httpx.TimeoutException as exc:
            raise UpstreamError(504, f"upstream timed out mid-stream ({_kind(exc)})") from exc
        except httpx.TransportError as exc:
            raise UpstreamError(502, f"upstream stream broke ({_kind(exc)})") from exc
        finally:
            await self.response.aclose()

    async def aclose(self) -> None:
        await self.response.aclose()


class Upstream:
    """One upstream base URL (``http://host:port/v1``) and the key the proxy sends it, if any.

    The HTTP client is made on first use, on the event loop that uses it (the proxy's scoring
    loop), and closed by :meth:`aclose`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self.timeout,
                transport=self._transport,
                limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
            )
        return self._client

    def _headers(self, client_key: str | None) -> dict[str, str]:
        key = client_key if client_key is not None else self.api_key
        headers = {"accept": "application/json"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        return headers

    async def _send(
        self, method: str, path: str, body: Any, client_key: str | None, stream: bool
    ) -> httpx.Response:
        http = self._http()
        request = http.build_request(
            method,
            f"{self.base_url}{path}",
            headers=self._headers(client_key),
            content=None if body is None else json.dumps(body).encode("utf-8"),
        )
        if body is not None:
            request.headers["content-type"] = "application/json"
        try:
            response = await http.send(request, stream=stream)
        except httpx.TimeoutException as exc:
            raise UpstreamError(504, f"upstream did not answer in time ({_kind(exc)})") from exc
        except httpx.TransportError as exc:
            raise UpstreamError(502, f"upstream unreachable ({_kind(exc)})") from exc
        if response.status_code >= 400:
            await response.aread()
            await response.aclose()
            raise _status_error(response)
        return response

    async def get_json(self, path: str, client_key: str | None = None) -> Any:
        response = await self._send("GET", path, None, client_key, stream=False)
        return _json(response)

    async def post_json(
        self, path: str, body: Any, client_key: str | None = None, *, max_bytes: int | None = None
    ) -> Any:
        """The reply's JSON; with ``max_bytes``, a reply longer than that is not read
        (:class:`UpstreamError` 502 naming ``--max-reply-bytes``)."""
        if max_bytes is None:
            return _json(await self._send("POST", path, body, client_key, stream=False))
        response = await self._send("POST", path, body, client_key, stream=True)
        return upstream_json(await _read_at_most(response, max_bytes))[0]

    async def open_stream(
        self, path: str, body: Any, client_key: str | None = None
    ) -> UpstreamStream:
        """Send a streaming request; errors before the first byte raise here."""
        return UpstreamStream(await self._send("POST", path, body, client_key, stream=True))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


async def _read_at_most(response: httpx.Response, max_bytes: int) -> bytes:
    """The body of a streamed ``response``, refused past ``max_bytes`` (said length or read)."""
    try:
        said = response.headers.get("content-length")
        if said is not None and said.isdigit() and int(said) > max_bytes:
            raise _too_long(max_bytes)
        parts: list[bytes] = []
        read = 0
        async for piece in response.aiter_bytes():
            read += len(piece)
            if read > max_bytes:
                raise _too_long(max_bytes)
            parts.append(piece)
        return b"".join(parts)
    except httpx.TimeoutException as exc:
        raise UpstreamError(504, f"upstream timed out mid-reply ({_kind(exc)})") from exc
    except httpx.TransportError as exc:
        raise UpstreamError(502, f"upstream reply broke ({_kind(exc)})") from exc
    finally:
        await response.aclose()


def _too_long(max_bytes: int) -> UpstreamError:
    return UpstreamError(
        502, f"upstream reply over {max_bytes} bytes: not read (--max-reply-bytes)"
    )


def _json(response: httpx.Response) -> Any:
    """The reply's JSON, cleaned as a request's is (:func:`upstream_json`)."""
    return upstream_json(response.content)[0]


def upstream_json(raw: str | bytes) -> tuple[Any, int]:
    """Parsed JSON from the upstream with every string cleaned as ``serve`` cleans a request
    (:func:`~guardrail.sanitize.clean_json`: lone surrogates, NUL and non-characters become
    U+FFFD, so the answer can be recorded and sent), and how many characters were replaced;
    :class:`UpstreamError` 502 for a body that is not JSON or is nested too deeply to read."""
    try:
        if isinstance(raw, str) and raw.isascii() and "\\u" not in raw:
            # ASCII without escapes holds no odd character (JSON refuses a raw NUL): most
            # stream events, read without walking them
            return json.loads(raw), 0
        return clean_json(json.loads(raw))
    except RecursionError:
        raise UpstreamError(502, "upstream sent JSON nested too deeply") from None
    except ValueError as exc:
        raise UpstreamError(502, "upstream sent a body that is not JSON") from exc


def _kind(exc: BaseException) -> str:
    return type(exc).__name__


def summarised_error(status: int, body: Any, text: str = "") -> dict[str, Any]:
    """An OpenAI-shaped error body saying that the upstream answered ``status``, with a
    redacted summary of its error ``body`` (parsed JSON) and ``text``: never their content."""
    summary = summarise(body, text)
    message = f"upstream answered {status}; {summary}"
    return {
        "error": {
            "message": message,
            "type": summary.type or "upstream_error",
            "param": summary.param,
            "code": summary.code if summary.code is not None else status,
        }
    }


def _status_error(response: httpx.Response) -> UpstreamError:
    status = response.status_code
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    text = response.text[:4096]
    if status >= 500:
        reply = summarised_error(status, body, text)
        return UpstreamError(502, reply["error"]["message"], body=reply)
    retry_after = response.headers.get("retry-after")
    headers = {"retry-after": retry_after} if status == 429 and retry_after else {}
    reply = summarised_error(status, body, text)
    return UpstreamError(status, reply["error"]["message"], body=reply, headers=headers)
