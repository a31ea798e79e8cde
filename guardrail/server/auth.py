"""Who may call what: the API key for ``/v1/*``, reviewer logins and CSRF for the review UI.

* API: ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``, compared in constant time.
* Reviewers log in with a personal token; the signed, HttpOnly session cookie (Starlette's
  ``SessionMiddleware``, itsdangerous) then holds their name and a random session id — nothing
  derived from the token. The server's session store keeps, per id, an HMAC of the token under
  the session secret; every request checks it against the current token set (removing a token
  ends its sessions) and that the session was not ended (logging out ends it, even for a copy
  of the cookie taken before).
* Every POST form carries a per-session CSRF token (synchronizer-token pattern), on top of the
  cookie's ``SameSite=strict``.
* Failed logins are throttled per network and for the whole service: after five failures
  within five minutes from one network (:func:`throttle_key`: all of loopback is one network,
  IPv4 addresses by /24, IPv6 by /64) that network gets 429 with ``Retry-After`` until the
  oldest failure ages out; after fifty failures within five minutes from anywhere, every login
  gets 429 the same way. So reviewer tokens cannot be guessed at network speed, neither by a
  local user cycling through 127.x.y.z source addresses nor by many hosts at once. The cost:
  a flood of wrong tokens also locks out reviewers with the right one until it ages out (a
  successful login is never counted). The login form may also name the reviewer (the token
  must then be that reviewer's): failures naming a reviewer are counted per reviewer too
  (:func:`reviewer_key`, five within five minutes), so guesses at one reviewer's token are
  bounded whatever networks they come from; they count once toward the service-wide budget.
  A reviewer whose name is being guessed at can still log in by token alone. The service
  counts failures in the review database
  (:class:`~guardrail.server.throttle.SharedLoginThrottle`, one limit for every worker);
  :class:`LoginThrottle` is the in-memory variant.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from fastapi import HTTPException, Request, status

from guardrail.exceptions import ConfigError
from guardrail.server.sessions import SessionStore

__all__ = [
    "GLOBAL_KEY",
    "LoginThrottle",
    "ReviewerTokens",
    "Throttle",
    "check_csrf",
    "csrf_token",
    "reviewer_key",
    "throttle_key",
]

#: The key every failure is also counted under, for the service-wide limit.
GLOBAL_KEY = "*"

_SESSION_REVIEWER = "reviewer"
_SESSION_CSRF = "csrf"
_SESSION_ID = "sid"


def _fingerprint(key: bytes, token: str) -> str:
    return hmac.new(key, token.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class ReviewerTokens:
    """The configured ``token -> reviewer name`` map, kept only as HMAC fingerprints under
    ``key`` (the session secret)."""

    by_fingerprint: Mapping[str, str]
    key: bytes

    @classmethod
    def from_mapping(cls, tokens: Mapping[str, str], key: bytes) -> ReviewerTokens:
        return cls({_fingerprint(key, t): name for t, name in tokens.items()}, key)

    def __bool__(self) -> bool:
        return bool(self.by_fingerprint)

    def match(self, token: str) -> tuple[str, str] | None:
        """``(reviewer, fingerprint)`` for a valid token, else None (constant-time compare)."""
        fp = _fingerprint(self.key, token)
        found: tuple[str, str] | None = None
        for known, name in self.by_fingerprint.items():
            if hmac.compare_digest(known, fp):
                found = (name, known)
        return found

    # --- sessions ----------------------------------------------------------------------------

    def login(
        self,
        request: Request,
        token: str,
        sessions: SessionStore,
        reviewer: str | None = None,
    ) -> str | None:
        """Start a session for the token's reviewer; return their name, or None if the token
        is invalid or, when ``reviewer`` is given, belongs to someone else."""
        hit = self.match(token.strip())
        if hit is None:
            return None
        name, fp = hit
        if reviewer is not None and reviewer_key(reviewer) != reviewer_key(name):
            return None
        request.session.clear()
        request.session.update({_SESSION_REVIEWER: name, _SESSION_ID: sessions.start(name, fp)})
        csrf_token(request)  # a fresh CSRF token for the new session
        return name

    def current(self, request: Request, sessions: SessionStore) -> str | None:
        """The logged-in reviewer, if the token is still configured and the session not ended."""
        name = request.session.get(_SESSION_REVIEWER)
        sid = request.session.get(_SESSION_ID)
        if not isinstance(name, str) or not isinstance(sid, str):
            return None
        fp = sessions.active(sid, name)
        if fp is None or self.by_fingerprint.get(fp) != name:
            return None
        return name


class Throttle(Protocol):
    """What the login route needs of a throttle (in memory, or shared through a database):
    ``client`` is the network key, ``reviewer`` the name the login gave, if any."""

    def attempt(self, client: str, reviewer: str | None = None) -> int | None: ...

    def succeeded(self, client: str, reviewer: str | None = None) -> None: ...

    def retry_after(self, client: str) -> int | None: ...


#: Characters of a reviewer name a login counts failures under (a longer one is cut).
MAX_REVIEWER_NAME = 200


def reviewer_key(name: str) -> str:
    """The key failed logins naming ``name`` are counted under: one per reviewer however the
    name is spelled (case, surrounding spaces), never equal to a network key."""
    return "reviewer:" + name.strip().casefold()[:MAX_REVIEWER_NAME]


def keys_of(client: str, reviewer: str | None) -> list[str]:
    """The keys one login attempt counts under, beside the service-wide count."""
    return [client] if reviewer is None else [client, reviewer_key(reviewer)]


class LoginThrottle:
    """Failed reviewer logins per client key (see :func:`throttle_key`) and in all, in a
    sliding window.

    After ``max_failures`` failures within ``window_s`` seconds a key is refused until the
    oldest of them is ``window_s`` old; a login naming a reviewer is likewise refused after
    ``max_reviewer_failures`` failures naming that reviewer (from any key); and after
    ``max_global_failures`` failures from all keys together (each failure counted once) every
    key is, until the oldest of those ages out. A successful login clears its key's and its
    reviewer's records and takes its attempt off the global count. Every allowed
    :meth:`attempt` counts as a failure until :meth:`succeeded` says otherwise. At most
    ``max_clients`` addresses are tracked (the least recently seen is forgotten first), so a
    flood of addresses cannot grow memory without bound. Thread-safe: the review routes run in
    a thread pool. Behind a reverse proxy every request comes from the proxy's address, so the
    limit is then shared by everyone: put the limit in the proxy instead, or accept that.
    """

    def __init__(
        self,
        max_failures: int = 5,
        window_s: float = 300.0,
        *,
        max_reviewer_failures: int = 5,
        max_global_failures: int = 50,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_throttle_limits(
            max_failures, max_reviewer_failures, max_global_failures, max_clients, window_s
        )
        self.max_failures = max_failures
        self.max_reviewer_failures = max_reviewer_failures
        self.max_global_failures = max_global_failures
        self.window_s = window_s
        self.max_clients = max_clients
        self._clock = clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._all: deque[tuple[float, str]] = deque()
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float] | None:
        times = self._failures.get(client)
        if times is None:
            return None
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if not times:
            del self._failures[client]
            return None
        return times

    def _limit(self, key: str) -> int:
        return self.max_reviewer_failures if key.startswith("reviewer:") else self.max_failures

    def _wait(self, keys: list[str], now: float) -> int | None:
        while self._all and now - self._all[0][0] >= self.window_s:
            self._all.popleft()
        if len(self._all) >= self.max_global_failures:
            oldest = self._all[len(self._all) - self.max_global_failures][0]
            return max(1, math.ceil(oldest + self.window_s - now))
        waits = [
            max(1, math.ceil(times[0] + self.window_s - now))
            for key in keys
            if (times := self._recent(key, now)) is not None and len(times) >= self._limit(key)
        ]
        return max(waits, default=None)

    def retry_after(self, client: str) -> int | None:
        """Seconds ``client`` must wait before trying again, or None when it may try now."""
        with self._lock:
            return self._wait([client], self._clock())

    def attempt(self, client: str, reviewer: str | None = None) -> int | None:
        """Start a login attempt (naming ``reviewer``, if given): the seconds to wait if
        refused, else None.

        An allowed attempt counts as a failure until :meth:`succeeded` clears it. Checking and
        counting under one lock means concurrent requests cannot slip past the limit together.
        """
        with self._lock:
            now = self._clock()
            keys = keys_of(client, reviewer)
            wait = self._wait(keys, now)
            if wait is not None:
                return wait
            for key in keys:
                times = self._failures.get(key)
                if times is None:
                    times = self._failures[key] = deque(maxlen=self._limit(key))
                times.append(now)
                self._failures.move_to_end(key)
            self._all.append((now, client))
            while len(self._failures) > self.max_clients:
                self._failures.popitem(last=False)
            return None

    def succeeded(self, client: str, reviewer: str | None = None) -> None:
        with self._lock:
            for key in keys_of(client, reviewer):
                self._failures.pop(key, None)
            for index in range(len(self._all) - 1, -1, -1):  # its latest attempt, just allowed
                if self._all[index][1] == client:
                    del self._all[index]
                    break


def check_throttle_limits(*limits: float) -> None:
    """Refuse a throttle whose counts or window are not positive (one line naming them)."""
    if min(limits) <= 0:
        raise ConfigError(
            "max_failures, max_reviewer_failures, max_global_failures, window_s and "
            "max_clients must be positive"
        )


def throttle_key(address: str) -> str:
    """The key failed logins from ``address`` are counted under: ``"loopback"`` for any
    loopback address (a local user can send from every 127.x.y.z), the /24 network of an IPv4
    address, the /64 network of an IPv6 one (hosts get whole /64s), ``address`` itself when it
    is no IP address (a test client's name, a Unix socket)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def client_address(request: Request) -> str:
    """The throttle key of the socket peer, as the server saw it (``guardrail serve`` rewrites
    the peer from ``X-Forwarded-For`` only for proxies in ``--forwarded-allow-ips``)."""
    return throttle_key(request.client.host) if request.client else "unknown"


def logout(request: Request, sessions: SessionStore) -> None:
    """End the session server-side and clear the cookie."""
    sid = request.session.get(_SESSION_ID)
    if isinstance(sid, str):
        sessions.end(sid)
    request.session.clear()


def csrf_token(request: Request) -> str:
    """This session's CSRF token, created on first use."""
    token = request.session.get(_SESSION_CSRF)
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        request.session[_SESSION_CSRF] = token
    return token


def check_csrf(request: Request, submitted: str | None) -> None:
    """Reject a form POST whose CSRF field does not match the session's token (403)."""
    expected = request.session.get(_SESSION_CSRF)
    if (
        not isinstance(expected, str)
        or not submitted
        or not hmac.compare_digest(expected, submitted)
    ):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "CSRF token missing or invalid")
