"""Failed reviewer logins are limited per network (all of loopback is one) and for the whole
service, so a local user cycling through 127.x.y.z addresses, or a botnet spread over many
networks, cannot guess tokens without limit."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from guardrail.server.auth import LoginThrottle, throttle_key
from guardrail.server.throttle import SharedLoginThrottle
from tests.hostile.test_login_side_doors import serve

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("127.0.3.4", "loopback"),
        ("127.255.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.9", "loopback"),
        ("10.1.2.3", "10.1.2.0/24"),
        ("10.1.2.200", "10.1.2.0/24"),
        ("::ffff:10.1.2.3", "10.1.2.0/24"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("testclient", "testclient"),
    ],
)
def test_addresses_are_throttled_by_network(address: str, key: str) -> None:
    """Loopback is one key; IPv4 by /24, IPv6 by /64; a name that is no address stays."""
    assert throttle_key(address) == key


def _throttles(tmp_path: Path, clock: Clock) -> list[LoginThrottle | SharedLoginThrottle]:
    return [
        LoginThrottle(max_failures=5, window_s=300, max_global_failures=20, clock=clock),
        SharedLoginThrottle(
            tmp_path / "review.sqlite3",
            max_failures=5,
            window_s=300,
            max_global_failures=20,
            clock=clock,
        ),
    ]


def test_the_global_limit_holds_across_many_networks(tmp_path: Path) -> None:
    """Failures from 30 networks, one each: the 21st is refused, whoever sends it."""
    clock = Clock()
    for throttle in _throttles(tmp_path, clock):
        waits = [throttle.attempt(f"10.0.{n}.0/24") for n in range(30)]
        assert waits[:20] == [None] * 20, type(throttle).__name__
        assert all(w is not None and w > 0 for w in waits[20:]), type(throttle).__name__
        clock.now += 301
        assert throttle.attempt("10.9.9.0/24") is None  # the window moved on


def test_a_success_does_not_count_against_the_global_limit(tmp_path: Path) -> None:
    """A login that succeeds is taken off both counts."""
    clock = Clock()
    for throttle in _throttles(tmp_path, clock):
        for n in range(40):
            assert throttle.attempt(f"10.0.{n}.0/24") is None, (type(throttle).__name__, n)
            throttle.succeeded(f"10.0.{n}.0/24")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve(tmp_path_factory.mktemp("loopback"))


def _login_from(url: str, source: str, token: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=url, timeout=30, transport=transport) as client:
        page = client.get("/review/login")
        match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert match, page.text[:300]
        reply = client.post("/review/login", data={"token": token, "csrf_token": match.group(1)})
        return reply.status_code


def test_thirty_loopback_addresses_share_one_limit(server: str) -> None:
    """Wrong tokens from 30 loopback source addresses: after five, every reply is 429."""
    codes = [_login_from(server, f"127.0.{n}.{n + 1}", "wrong-token-0123456789") for n in range(30)]
    assert codes[:5] == [401] * 5
    assert set(codes[5:]) == {429}
