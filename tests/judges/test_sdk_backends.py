"""Behaviour both SDK judges share, pinned through the real SDK clients over a fake transport."""

from __future__ import annotations

import asyncio
import gc
import random

import httpx2
import pytest

from guardrail.exceptions import (
    ConfigError,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeServerError,
    JudgeTimeout,
)
from guardrail.judges.base import Judge, JudgeRequest
from guardrail.judges.runner import JudgeCallError, JudgeRunner, RetryPolicy

from .fakes import BACKENDS, Backend, FakeServer, error_response, loopback_server

backends = pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.id)
REQUEST = JudgeRequest(task="verify", prompt="Is the sky blue? Context: the sky is blue.")


def runner(judge: Judge, *, timeout_s: float = 5.0, max_attempts: int = 3) -> JudgeRunner:
    policy = RetryPolicy(timeout_s=timeout_s, max_attempts=max_attempts, backoff_base_s=0.001)
    return JudgeRunner(judge, policy, rng=random.Random(0))


@backends
async def test_parses_text_model_and_usage(backend: Backend):
    """The answer text, the served model and both token counts come from the SDK response."""
    server = FakeServer(
        [backend.ok("NO. contradicted", prompt_tokens=42, completion_tokens=5, model="m-0401")]
    )
    response = await backend.judge(server).complete(REQUEST)
    assert response.text == "NO. contradicted"
    assert response.model == "m-0401"
    assert (response.prompt_tokens, response.completion_tokens) == (42, 5)
    assert server.count == 1 and server.last.path == backend.path


@backends
async def test_missing_usage_counts_zero_tokens(backend: Backend):
    """A server that reports no usage (common for local servers) yields 0 tokens, not an error."""
    server = FakeServer([backend.ok("YES. ok", usage=False)])
    response = await backend.judge(server).complete(REQUEST)
    assert response.text == "YES. ok"
    assert (response.prompt_tokens, response.completion_tokens) == (0, 0)


@backends
async def test_empty_content_gives_empty_text(backend: Backend):
    """No content (null message / no text blocks) becomes "" for the parsers' fallback rules."""
    server = FakeServer([backend.ok(None)])
    response = await backend.judge(server).complete(REQUEST)
    assert response.text == ""


@backends
@pytest.mark.parametrize("status", [429, 500, 503])
async def test_runner_retries_retryable_statuses_then_succeeds(backend: Backend, status: int):
    """Two failures then an answer: three HTTP requests (no hidden SDK retries), one good record."""
    server = FakeServer(
        [error_response(status), error_response(status), backend.ok("YES. finally")]
    )
    response, call = await runner(backend.judge(server)).call("verify", REQUEST)
    assert server.count == 3
    assert response.text == "YES. finally"
    assert call.ok and call.attempts == 3 and call.prompt_tokens == 11


@backends
@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_client_errors_are_not_retried(backend: Backend, status: int):
    """Auth, unknown model and bad request fail after one HTTP request, with the status kept."""
    server = FakeServer([error_response(status, "model 'test-model' does not exist")])
    with pytest.raises(JudgeCallError) as info:
        await runner(backend.judge(server)).call("verify", REQUEST)
    assert server.count == 1
    assert isinstance(info.value.cause, JudgeRequestError)
    assert info.value.status_code == status
    # the status and the body's error type, never the body's text (see guardrail.error_bodies)
    assert "scripted_error" in str(info.value) and "does not exist" not in str(info.value)
    assert info.value.call.attempts == 1 and not info.value.call.ok


@backends
@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, JudgeRequestError),
        (401, JudgeRequestError),
        (404, JudgeRequestError),
        (408, JudgeTimeout),
        (409, JudgeRequestError),
        (429, JudgeRateLimited),
        (500, JudgeServerError),
        (502, JudgeServerError),
        (503, JudgeServerError),
        (529, JudgeRateLimited),
    ],
)
async def test_status_codes_map_to_guardrail_errors(
    backend: Backend, status: int, expected: type[JudgeError]
):
    """Each HTTP status becomes the guardrail error whose ``retryable`` the runner trusts."""
    server = FakeServer([error_response(status)])
    with pytest.raises(JudgeError) as info:
        await backend.judge(server).complete(REQUEST)
    assert type(info.value) is expected
    assert info.value.status_code == status
    assert str(info.value).startswith(f"{backend.id}:test-model: HTTP {status}")


@backends
async def test_401_message_names_the_key_variable(backend: Backend):
    """A rejected key tells the user which environment variable to check."""
    server = FakeServer([error_response(401, "invalid x-api-key")])
    with pytest.raises(JudgeRequestError, match=backend.key_env):
        await backend.judge(server).complete(REQUEST)


@backends
async def test_slow_server_times_out_per_attempt(backend: Backend):
    """A server slower than the policy's timeout yields JudgeTimeout after every attempt."""

    async def slow(request: httpx2.Request) -> httpx2.Response:
        await asyncio.sleep(5)
        return backend.ok()

    server = FakeServer([slow])
    with pytest.raises(JudgeCallError) as info:
        await runner(backend.judge(server), timeout_s=0.05, max_attempts=2).call("verify", REQUEST)
    assert isinstance(info.value.cause, JudgeTimeout)
    assert server.count == 2 and info.value.call.attempts == 2


@backends
async def test_transport_timeout_is_retryable_judge_timeout(backend: Backend):
    """The transport's own timeout maps to JudgeTimeout, and the runner's next try succeeds."""
    server = FakeServer([httpx2.ReadTimeout("read timed out"), backend.ok("YES. second")])
    with pytest.raises(JudgeTimeout):
        await backend.judge(server).complete(REQUEST)
    server.seen.clear()
    response, call = await runner(backend.judge(server)).call("verify", REQUEST)
    assert response.text == "YES. second" and call.attempts == 2 and server.count == 2


@backends
async def test_connection_error_is_retryable_server_error(backend: Backend):
    """A refused or dropped connection is a JudgeServerError, which the runner retries."""
    server = FakeServer([httpx2.ConnectError("connection refused")])
    with pytest.raises(JudgeServerError, match="connection refused") as info:
        await backend.judge(server).complete(REQUEST)
    assert info.value.retryable


@backends
async def test_missing_api_key_fails_with_hint_and_sends_nothing(backend: Backend):
    """No key anywhere: a one-line, non-retryable error naming the variable; no request made."""
    server = FakeServer([backend.ok()])
    judge = backend.factory("test-model", http_client=server.http_client())  # no I/O, no raise
    with pytest.raises(JudgeRequestError) as info:
        await judge.complete(REQUEST)
    message = str(info.value)
    assert backend.key_env in message and "--judge local" in message and "\n" not in message
    assert server.count == 0
    with pytest.raises(JudgeCallError):
        await runner(judge).call("verify", REQUEST)
    assert server.count == 0


@backends
async def test_api_key_is_read_at_first_call_not_construction(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
):
    """The constructor reads no environment: a key exported after construction is used."""
    server = FakeServer([backend.ok()])
    judge = backend.factory("test-model", http_client=server.http_client())
    monkeypatch.setenv(backend.key_env, "sk-from-env")
    await judge.complete(REQUEST)
    assert server.last.headers["authorization"] == "Bearer sk-from-env"


@backends
async def test_html_page_is_a_non_retryable_config_error(backend: Backend):
    """A 200 web page (base URL pointing at a UI, not the API) fails once, naming the URL."""
    page = httpx2.Response(200, text="<html>welcome</html>", headers={"content-type": "text/html"})
    server = FakeServer([page])
    with pytest.raises(JudgeRequestError, match="base URL"):
        await backend.judge(server).complete(REQUEST)


@backends
async def test_broken_json_is_a_retryable_server_error(backend: Backend):
    """A body declared JSON but unparsable is a server glitch, worth another try."""
    broken = httpx2.Response(200, text="{not json", headers={"content-type": "application/json"})
    server = FakeServer([broken])
    with pytest.raises(JudgeServerError, match="invalid JSON"):
        await backend.judge(server).complete(REQUEST)


# The first loop's pooled socket can only be reclaimed by the garbage collector once that loop
# is closed; Python reports it as a ResourceWarning, which is the expected cost here.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@backends
def test_judge_survives_a_new_event_loop(backend: Backend):
    """A real connection pool is rebuilt per event loop: two asyncio.run calls both succeed."""

    async def ask(close: bool):
        response = await judge.complete(REQUEST)
        if close:
            await judge.aclose()
        return response

    with loopback_server() as (root, hits):
        base = f"{root}/v1" if backend.id == "openai" else root
        judge = backend.factory("test-model", api_key="sk-test", base_url=base)
        first = asyncio.run(ask(close=False))
        second = asyncio.run(ask(close=True))
        gc.collect()  # reclaim the first loop's socket here, under this test's warning filter
    assert first.text == second.text == "YES. supported"
    assert hits == [backend.path, backend.path]


@backends
def test_aclose_from_another_loop_is_harmless(backend: Backend):
    """aclose() on a loop other than the one the client ran on drops it without error."""
    server = FakeServer([backend.ok()])
    http_client = server.http_client()
    judge = backend.factory("test-model", api_key="sk-test", http_client=http_client)
    asyncio.run(judge.complete(REQUEST))
    asyncio.run(judge.aclose())  # type: ignore[attr-defined]
    assert not http_client.is_closed  # left alone: closing it here would touch a dead loop
    asyncio.run(judge.complete(REQUEST))
    assert server.count == 2


@backends
async def test_aclose_closes_the_http_client(backend: Backend):
    """aclose() releases the connection pool of the client the judge built."""
    server = FakeServer([backend.ok()])
    http_client = server.http_client()
    judge = backend.factory("test-model", api_key="sk-test", http_client=http_client)
    await judge.complete(REQUEST)
    assert not http_client.is_closed
    await judge.aclose()  # type: ignore[attr-defined]
    assert http_client.is_closed


@backends
@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": ""},
        {"model": "m", "max_tokens": 0},
        {"model": "m", "base_url": "localhost:11434/v1"},
        {"model": "m", "base_url": "ftp://host"},
    ],
    ids=["empty-model", "zero-max-tokens", "url-without-scheme", "non-http-url"],
)
def test_bad_constructor_arguments_raise_config_error(backend: Backend, kwargs: dict):
    """Obvious misconfiguration fails at construction with a ConfigError, before any call."""
    options = dict(kwargs)
    model = options.pop("model")
    with pytest.raises(ConfigError):
        backend.factory(model, **options)


@backends
def test_client_and_connection_options_are_exclusive(backend: Backend):
    """A ready client plus an api_key is ambiguous and refused."""
    server = FakeServer([backend.ok()])
    client = backend.sdk_client(server)
    with pytest.raises(ConfigError, match="either client"):
        backend.factory("m", client=client, api_key="sk-other")


@backends
async def test_a_client_you_pass_is_used_as_is(backend: Backend):
    """With client=, requests go through that SDK client (and its transport)."""
    server = FakeServer([backend.ok("YES. yours")])
    judge = backend.factory("test-model", client=backend.sdk_client(server))
    response = await judge.complete(REQUEST)
    assert response.text == "YES. yours"
    assert server.last.headers["authorization"] == "Bearer sk-own-client"
