"""What the two official-SDK backends share: argument checks, a per-event-loop client slot,
closing, and error translation.

Both SDKs raise the same three shapes of failure (``APITimeoutError``, ``APIConnectionError``,
``APIStatusError`` with a ``status_code`` and a JSON ``body``), so one table maps them onto the
retryable / not-retryable split of :mod:`guardrail.exceptions`:

=====================================  =======================  =========
failure                                guardrail error          retried
=====================================  =======================  =========
transport timeout, HTTP 408            ``JudgeTimeout``         yes
HTTP 429, HTTP 529 (overloaded)        ``JudgeRateLimited``     yes
HTTP >= 500, connection dropped        ``JudgeServerError``     yes
body that is not JSON                  ``JudgeServerError``     yes
other 4xx (auth, unknown model, ...)   ``JudgeRequestError``    no
200 that is not the API's JSON shape   ``JudgeRequestError``    no
=====================================  =======================  =========

An error's message holds the status, a hint for the statuses users hit while setting up, and
a redacted summary of the error body (:mod:`guardrail.error_bodies`: its type, code and param
when they are identifiers, and the request fields it mentions), never the body's text: a
server may echo the API key or the prompt, and the message reaches audit records and spans.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from guardrail.error_bodies import summarise
from guardrail.exceptions import (
    ConfigError,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeServerError,
    JudgeTimeout,
)

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

_DETAIL_MAX = 300

#: Short advice appended to the status line, for the statuses users hit while setting up.
_STATUS_HINTS = {
    401: "authentication failed; check {key_env}",
    403: "permission denied for this key or model",
    404: "model or endpoint not found; check the model name and the base URL",
}


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _DETAIL_MAX else flat[: _DETAIL_MAX - 1] + "…"


def status_error(judge: str, status: int, detail: str, *, key_env: str) -> JudgeError:
    """Map an HTTP error status to the guardrail error the runner knows how to treat."""
    hint = _STATUS_HINTS.get(status, "").format(key_env=key_env)
    message = f"{judge}: HTTP {status}{f' ({hint})' if hint else ''}: {detail}"
    cls: type[JudgeError]
    if status == 408:
        cls = JudgeTimeout
    elif status in (429, 529):
        cls = JudgeRateLimited
    elif status >= 500:
        cls = JudgeServerError
    else:
        cls = JudgeRequestError
    return cls(message, status_code=status)


def wrong_shape_error(judge: str, what: str, base_url: str) -> JudgeRequestError:
    """A 2xx answer that is not the API's response object: almost always a wrong base URL."""
    return JudgeRequestError(
        f"{judge}: the server at {base_url} did not answer with {what}; "
        "is the base URL the API endpoint (OpenAI-compatible servers usually end in /v1)?"
    )


def check_base_url(base_url: str | None) -> str | None:
    """Reject a base URL the SDK would only fail on at the first call, far from its source."""
    if base_url is None:
        return None
    url = base_url.strip()
    if not url.startswith(("http://", "https://")) or len(url.split("://", 1)[1]) == 0:
        raise ConfigError(f"base_url {base_url!r}: expected an http:// or https:// URL")
    return url


class _Closable(Protocol):
    async def close(self) -> None: ...


_C = TypeVar("_C", bound=_Closable)


class LoopClient(Generic[_C]):
    """Holds one SDK client for the event loop that made it; builds a fresh one on a new loop.

    An SDK client's connection pool belongs to the loop it first ran on: reusing it after
    ``asyncio.run`` returned fails with "Event loop is closed". A sync entry point that calls
    ``asyncio.run`` per answer would hit that on its second answer. Only one client is kept,
    so memory stays bounded however many loops come and go.

    Backends give the SDK a plain ``DefaultAsyncHttpxClient`` (the SDK's own defaults) rather
    than letting it make its wrapper, whose ``__del__`` schedules ``aclose()`` on whatever loop
    is running when it is dropped — here the *new* loop, where closing the old loop's sockets
    fails with a logged "Event loop is closed". A dropped plain client is reclaimed silently.
    """

    def __init__(self, factory: Callable[[], _C]) -> None:
        self._factory = factory
        self._loop: weakref.ReferenceType[asyncio.AbstractEventLoop] | None = None
        self._client: _C | None = None

    def get(self) -> _C:
        """The client for the running loop, built (by ``factory``) on first use in that loop."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is None or self._loop() is not loop:
            self._client = self._factory()
            self._loop = weakref.ref(loop)
        return self._client

    def take(self) -> _C | None:
        """Forget the current client; return it for closing if it belongs to the running loop.

        A client from another (usually closed) loop cannot be closed from this one; it is
        dropped and left to the garbage collector.
        """
        client, loop = self._client, self._loop() if self._loop else None
        self._client, self._loop = None, None
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return client if loop is running else None


class SDKJudge(Generic[_C]):
    """The part of an SDK-backed judge that does not depend on the API it speaks.

    Checks the constructor arguments, keeps the SDK client in a :class:`LoopClient` (either
    the ``client`` passed in, or one built by the subclass's :meth:`_build_client` on first
    use), and closes only a client it built. Subclasses set ``_name`` and implement
    ``complete`` and ``_build_client``.
    """

    _name: str

    def __init__(
        self,
        model: str,
        *,
        client: _C | None,
        api_key: str | None,
        base_url: str | None,
        max_tokens: int,
        http_client: httpx2.AsyncClient | None,
    ) -> None:
        kind = type(self).__name__
        if not model or not model.strip():
            raise ConfigError(f"{kind}: model must be a non-empty string")
        if max_tokens < 1:
            raise ConfigError(f"{kind}: max_tokens must be >= 1, got {max_tokens}")
        if client is not None and (api_key or base_url or http_client):
            raise ConfigError(
                f"{kind}: pass either client= or api_key/base_url/http_client, not both"
            )
        self.model = model.strip()
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._base_url = check_base_url(base_url)
        self._http_client = http_client
        self._own_client = client is None
        self._client: LoopClient[_C] = LoopClient(
            (lambda: client) if client is not None else self._build_client
        )

    @property
    def name(self) -> str:
        """The judge's name in audit records (``openai:MODEL``, ``anthropic:MODEL``, ...)."""
        return self._name

    def _build_client(self) -> _C:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the SDK client this judge built for the running loop, and its HTTP client.

        Call it from the loop that made the calls. A ``client=`` you passed in stays open.
        """
        client = self._client.take()
        if client is not None and self._own_client:
            await client.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


@contextlib.contextmanager
def translate_errors(sdk: ModuleType, name: str, *, key_env: str) -> Iterator[None]:
    """Map one SDK call's failures onto the table above (``sdk`` is ``openai`` or ``anthropic``).

    Both SDKs define ``APITimeoutError``, ``APIConnectionError`` and ``APIStatusError`` with the
    same attributes; the timeout is caught first because it subclasses the connection error.
    """
    try:
        yield
    except sdk.APITimeoutError as exc:  # connect, read or write timeout
        raise JudgeTimeout(f"{name}: the HTTP request timed out") from exc
    except sdk.APIConnectionError as exc:  # not made or dropped: another try may reach the server
        reason = exc.__cause__ or exc
        raise JudgeServerError(
            f"{name}: connection failed: {_one_line(str(reason) or repr(reason))}"
        ) from exc
    except sdk.APIStatusError as exc:
        detail = str(summarise(exc.body, exc.message))
        raise status_error(name, exc.status_code, detail, key_env=key_env) from exc
    except json.JSONDecodeError as exc:  # declared JSON, sent something else: a glitch
        raise JudgeServerError(
            f"{name}: the server sent invalid JSON: {_one_line(str(exc))}"
        ) from exc
