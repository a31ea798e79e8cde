"""Failed reviewer logins are throttled per client address (unit, then over real HTTP)."""

from __future__ import annotations

import threading

import httpx
import pytest

from guardrail.exceptions import ConfigError
from guardrail.server import LoginThrottle, create_app
from guardrail.server.testing import serve_in_thread
from tests.server.conftest import ALICE, API_KEY, BOB
from tests.server.test_review_http import login


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_refuses_after_max_failures_until_the_oldest_ages_out():
    clock = Clock()
    throttle = LoginThrottle(3, 60.0, clock=clock)
    for _ in range(2):
        throttle.attempt("a")
        clock.now += 10
    assert throttle.retry_after("a") is None  # two failures: still allowed
    throttle.attempt("a")  # third, at t = 1020; the first was at t = 1000
    assert throttle.retry_after("a") == 40
    assert throttle.retry_after("b") is None  # other addresses are unaffected
    clock.now = 1059.5
    assert throttle.retry_after("a") == 1
    clock.now = 1060.0  # the first failure is now 60 s old
    assert throttle.retry_after("a") is None


def test_success_clears_the_record():
    throttle = LoginThrottle(2, 60.0, clock=Clock())
    throttle.attempt("a")
    throttle.succeeded("a")
    throttle.attempt("a")
    assert throttle.retry_after("a") is None


def test_memory_is_bounded_by_max_clients():
    throttle = LoginThrottle(1, 60.0, max_clients=2, clock=Clock())
    for client in ("a", "b", "c"):
        throttle.attempt(client)
    assert throttle.retry_after("a") is None  # forgotten: least recently seen
    assert throttle.retry_after("b") is not None and throttle.retry_after("c") is not None


def test_concurrent_failures_are_all_counted():
    throttle = LoginThrottle(400, 60.0)

    def worker() -> None:
        for _ in range(50):
            throttle.attempt("a")

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert throttle.retry_after("a") is not None


def test_concurrent_attempts_cannot_pass_the_limit_together():
    """Check and count are one step: of 160 simultaneous attempts exactly 5 are let through."""
    throttle = LoginThrottle(5, 60.0)
    allowed: list[None] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        allowed.extend(w for w in (throttle.attempt("a") for _ in range(20)) if w is None)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(allowed) == 5


@pytest.mark.parametrize("kwargs", [{"max_failures": 0}, {"window_s": 0}, {"max_clients": 0}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ConfigError, match="must be positive"):
        LoginThrottle(**kwargs)


def review_app(checker, queue, throttle: LoginThrottle):
    """The service with the review page for alice and bob, logins throttled by ``throttle``."""
    return create_app(
        checker=checker,
        queue=queue,
        api_key=API_KEY,
        reviewer_tokens={ALICE: "alice", BOB: "bob"},
        session_secret="s" * 40,
        login_throttle=throttle,
    )


def test_http_refuses_even_the_right_token_once_throttled(checker, queue):
    """Over real HTTP: 2 wrong tokens, then 429 with Retry-After — also for a valid token."""
    app = review_app(checker, queue, LoginThrottle(2, 300.0))
    with serve_in_thread(app) as base, httpx.Client(base_url=base) as client:
        with httpx.Client(base_url=base) as bob:
            assert login(bob, BOB).status_code == 303  # a success leaves nothing behind
        assert login(client, "wrong-token-number-one").status_code == 401
        assert login(client, "wrong-token-number-two").status_code == 401
        refused = login(client, ALICE)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 300
        assert "Too many failed logins" in refused.text
        assert "Signed in as <strong>alice" not in client.get("/review").text
