"""Failed reviewer logins counted in the review database, so every process shares one limit.

:class:`~guardrail.server.auth.LoginThrottle` counts in memory: with ``guardrail serve
--workers 4`` each process would allow its own five failures, and replicas behind a load
balancer their own again. :class:`SharedLoginThrottle` keeps the same sliding window in a
table of the review database (the SQLite file or the PostgreSQL database every worker and
replica already shares), with the same interface and the same two limits: per client key and
for all keys together. Only failures are stored (key and time), never the token tried.

A login that names a reviewer is also counted under that reviewer
(:func:`~guardrail.server.auth.reviewer_key`, rows keyed ``reviewer:<name>``, not part of the
service-wide count), with its own limit.

The key is the socket peer's network (:func:`~guardrail.server.auth.throttle_key`: loopback is
one key, IPv4 by /24, IPv6 by /64). ``guardrail serve`` trusts ``X-Forwarded-For`` only from the
proxies named by ``--forwarded-allow-ips``; without that option a client cannot choose the
address it is throttled under, and the global limit bounds what many addresses can do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from guardrail.server.auth import check_throttle_limits, keys_of
from guardrail.storage import Connection, Target, open_database

__all__ = ["SharedLoginThrottle"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS login_failures (
    client TEXT NOT NULL,
    at     {real} NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_client ON login_failures (client, at);
CREATE INDEX IF NOT EXISTS login_failures_at ON login_failures (at);
"""


class SharedLoginThrottle:
    """At most ``max_failures`` failed logins per client key, ``max_reviewer_failures`` per
    reviewer named and ``max_global_failures`` in all within ``window_s``, shared through the
    review database at ``target``. At most ``max_clients`` x ``max_failures`` rows are kept
    (the oldest go first), so a flood of addresses cannot grow the table without bound."""

    def __init__(
        self,
        target: Target,
        max_failures: int = 5,
        window_s: float = 300.0,
        *,
        max_reviewer_failures: int = 5,
        max_global_failures: int = 50,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.time,
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
        self._db = open_database(
            target,
            sqlite=_SCHEMA.format(real="REAL"),
            postgres=_SCHEMA.format(real="DOUBLE PRECISION"),
            what="login throttle",
        )

    def _wait(self, conn: Connection, keys: list[str], now: float) -> int | None:
        nth = conn.execute(
            "SELECT at FROM login_failures WHERE at > ? AND client NOT LIKE ?"
            " ORDER BY at DESC LIMIT 1 OFFSET ?",  # the pattern is a parameter: psycopg reads %
            (now - self.window_s, "reviewer:%", self.max_global_failures - 1),
        ).fetchone()
        if nth is not None:  # max_global_failures or more within the window, from anywhere
            return max(1, math.ceil(float(nth["at"]) + self.window_s - now))
        waits = []
        for key in keys:
            row = conn.execute(
                "SELECT COUNT(*) AS n, MIN(at) AS first FROM login_failures"
                " WHERE client = ? AND at > ?",
                (key, now - self.window_s),
            ).fetchone()
            limit = self.max_reviewer_failures if key != keys[0] else self.max_failures
            if row is not None and row["n"] >= limit:
                waits.append(max(1, math.ceil(float(row["first"]) + self.window_s - now)))
        return max(waits, default=None)

    def retry_after(self, client: str) -> int | None:
        """Seconds ``client`` must wait before trying again, or None when it may try now."""
        with self._db.read() as conn:
            return self._wait(conn, [client], self._clock())

    def attempt(self, client: str, reviewer: str | None = None) -> int | None:
        """Start a login attempt (naming ``reviewer``, if given): the seconds to wait if
        refused, else None (the attempt counts as a failure until :meth:`succeeded`). Checked
        and counted in one write transaction."""
        keys = keys_of(client, reviewer)
        now = self._clock()
        with self._db.write() as conn:
            if self._db.backend == "postgresql":  # serialize attempts across hosts (global count)
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", ("guardrail-logins",))
            conn.execute("DELETE FROM login_failures WHERE at <= ?", (now - self.window_s,))
            wait = self._wait(conn, keys, now)
            if wait is not None:
                return wait
            for key in keys:
                conn.execute("INSERT INTO login_failures (client, at) VALUES (?, ?)", (key, now))
            keep = self.max_clients * self.max_failures
            total = conn.execute("SELECT COUNT(*) AS n FROM login_failures").fetchone()["n"]
            if total > keep:
                cutoff = conn.execute(
                    "SELECT at FROM login_failures ORDER BY at DESC LIMIT 1 OFFSET ?", (keep,)
                ).fetchone()
                if cutoff is not None:
                    conn.execute("DELETE FROM login_failures WHERE at <= ?", (cutoff["at"],))
        return None

    def succeeded(self, client: str, reviewer: str | None = None) -> None:
        """Clear ``client``'s (and ``reviewer``'s) failures (its attempt just allowed among
        them), so a successful login counts toward no limit."""
        with self._db.write() as conn:
            for key in keys_of(client, reviewer):
                conn.execute("DELETE FROM login_failures WHERE client = ?", (key,))
