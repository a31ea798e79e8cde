"""Review sessions that the server can end: a signed cookie alone stays valid until it expires.

The session cookie carries a random session id and nothing derived from the reviewer's token;
this store (a table in the review database,
so every ``serve --workers`` process, and every replica sharing a PostgreSQL review database,
sees the same sessions) records which ids are live. Logging
out ends the id, so a cookie captured earlier stops working at once instead of after eight
hours. Only a SHA-256 of each id is stored: a copy of the database does not yield live cookies.
Each row also holds the login token's keyed fingerprint (an HMAC under the server's session
secret, useless for guessing tokens without that secret), so removing a token from the
configuration ends the sessions it started.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from guardrail.storage import Target, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_logins (
    sid_hash   TEXT PRIMARY KEY,
    reviewer   TEXT NOT NULL,
    token_fp   TEXT NOT NULL,
    started_at {real} NOT NULL,
    ended_at   {real}
);
"""


def _hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()


class SessionStore:
    """Live review sessions, shared through the review database (a file or PostgreSQL)."""

    def __init__(self, target: Target, *, max_age_s: float) -> None:
        self.max_age_s = max_age_s
        self._db = open_database(
            target,
            sqlite=_SCHEMA.format(real="REAL"),
            postgres=_SCHEMA.format(real="DOUBLE PRECISION"),
            what="review sessions",
        )

    def start(self, reviewer: str, token_fp: str) -> str:
        """Record a new session for ``reviewer`` who logged in with the token of fingerprint
        ``token_fp``; return its id (for the cookie)."""
        sid = secrets.token_urlsafe(24)
        now = time.time()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO review_logins (sid_hash, reviewer, token_fp, started_at)"
                " VALUES (?, ?, ?, ?)",
                (_hash(sid), reviewer, token_fp, now),
            )
            # sessions past their age are dead anyway: keep the table small
            conn.execute("DELETE FROM review_logins WHERE started_at < ?", (now - self.max_age_s,))
        return sid

    def active(self, sid: str, reviewer: str) -> str | None:
        """The token fingerprint of ``sid`` while it is ``reviewer``'s session, not ended and
        not older than max age; else None."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT reviewer, token_fp, started_at, ended_at FROM review_logins"
                " WHERE sid_hash = ?",
                (_hash(sid),),
            ).fetchone()
        if (
            row is None
            or row["reviewer"] != reviewer
            or row["ended_at"] is not None
            or time.time() - row["started_at"] >= self.max_age_s
        ):
            return None
        token_fp: str = row["token_fp"]
        return token_fp

    def end(self, sid: str) -> None:
        """End the session (logout); unknown ids are ignored."""
        with self._db.write() as conn:
            conn.execute(
                "UPDATE review_logins SET ended_at = ? WHERE sid_hash = ?",
                (time.time(), _hash(sid)),
            )
