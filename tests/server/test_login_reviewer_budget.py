"""Failed logins that name a reviewer are also counted per reviewer: guessing one reviewer's
token is bounded whatever network the guesses come from, and the service-wide budget bounds
guesses from many networks together. Unit tests of both throttles (in memory and shared
through the review database), then the login form over real HTTP on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from guardrail.server import LoginThrottle
from guardrail.server.testing import serve_in_thread
from guardrail.server.throttle import SharedLoginThrottle
from tests.server.conftest import ALICE, BOB
from tests.server.test_login_throttle import review_app
from tests.server.test_review_http import csrf


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _throttles(tmp_path, **limits):
    clock = Clock()
    return [
        LoginThrottle(clock=clock, **limits),
        SharedLoginThrottle(tmp_path / "review.sqlite3", clock=clock, **limits),
    ]


@pytest.mark.parametrize("kind", [0, 1], ids=["memory", "shared"])
def test_guesses_at_one_reviewer_from_many_networks_are_bounded(tmp_path, kind):
    """3 failures naming alice, each from another network: the 4th naming alice is refused
    (from a fifth network too), while logins naming bob or no one go on."""
    throttle = _throttles(
        tmp_path, max_failures=5, max_reviewer_failures=3, max_global_failures=50
    )[kind]
    for n in range(3):
        assert throttle.attempt(f"10.0.{n}.0/24", "alice") is None
    assert throttle.attempt("10.0.9.0/24", "alice") is not None
    assert throttle.attempt("10.0.9.0/24", "Alice ") is not None  # one reviewer, any spelling
    assert throttle.attempt("10.0.9.0/24", "bob") is None
    assert throttle.attempt("10.0.9.0/24") is None


@pytest.mark.parametrize("kind", [0, 1], ids=["memory", "shared"])
def test_a_reviewer_failure_counts_once_in_the_global_budget(tmp_path, kind):
    """Naming a reviewer does not count a failure twice toward the service-wide budget."""
    throttle = _throttles(
        tmp_path, max_failures=50, max_reviewer_failures=50, max_global_failures=4
    )[kind]
    for n in range(3):
        assert throttle.attempt(f"10.0.{n}.0/24", "alice") is None
    assert throttle.attempt("10.0.5.0/24", "bob") is None  # the 4th failure in all
    assert throttle.attempt("10.0.6.0/24") is not None  # the budget is spent: everyone waits


@pytest.mark.parametrize("kind", [0, 1], ids=["memory", "shared"])
def test_a_success_clears_the_reviewers_failures(tmp_path, kind):
    throttle = _throttles(tmp_path, max_failures=5, max_reviewer_failures=2)[kind]
    assert throttle.attempt("loopback", "alice") is None
    assert throttle.attempt("loopback", "alice") is None
    throttle.succeeded("loopback", "alice")
    assert throttle.attempt("loopback", "alice") is None


def _login(client: httpx.Client, token: str, reviewer: str | None = None) -> httpx.Response:
    page = client.get("/review/login")
    data = {"token": token, "csrf_token": csrf(page.text)}
    if reviewer is not None:
        data["reviewer"] = reviewer
    return client.post("/review/login", data=data)


def test_http_logins_naming_a_reviewer_have_their_own_budget(checker, queue):
    """Over real HTTP: 2 wrong tokens naming alice, then alice's own token naming her gets 429
    — her budget is spent — while bob logs in, and a token must match the name it is sent
    with."""
    app = review_app(checker, queue, LoginThrottle(10, 300.0, max_reviewer_failures=2))
    with serve_in_thread(app) as base, httpx.Client(base_url=base) as client:
        assert 'name="reviewer"' in client.get("/review/login").text
        assert _login(client, "wrong-token-number-one", "alice").status_code == 401
        assert _login(client, BOB, "alice").status_code == 401  # bob's token is not alice's
        refused = _login(client, ALICE, "alice")
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 300
        with httpx.Client(base_url=base) as bob:
            assert _login(bob, BOB, "bob").status_code == 303
        with httpx.Client(base_url=base) as anyone:
            assert _login(anyone, ALICE).status_code == 303  # by token alone: no name counted
