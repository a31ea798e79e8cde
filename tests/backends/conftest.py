"""One suite, two backends: every test here runs against SQLite/JSON Lines and PostgreSQL.

``store`` yields a :class:`Store`: where the review database and the audit trail are (a file
path each, or the same ``postgresql://`` URL of a fresh database), plus the few operations a
test needs that are backend-specific by nature (tampering with a stored record). PostgreSQL is
a throw-away cluster started once per session (:class:`~guardrail.queues.pgcluster.
LocalCluster`); without one the PostgreSQL half skips, and fails under CI=true.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from guardrail.queues.pgcluster import LocalCluster, missing_reason
from guardrail.storage import Target, close_pools
from tests.needs import unavailable

_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[LocalCluster]:
    """A PostgreSQL server for this test session (not durable: fsync off), stopped at the end."""
    reason = missing_reason()
    if reason is not None:
        unavailable("PostgreSQL", reason)
    cluster = LocalCluster(durable=False).start()
    try:
        yield cluster
    finally:
        close_pools()
        cluster.stop()


@dataclass
class Store:
    """Where one test's review database and audit trail live."""

    backend: str
    db: Target
    audit: Target

    @property
    def postgres(self) -> bool:
        return self.backend == "postgresql"

    def lines(self) -> list[bytes]:
        """The audit trail's stored records, in order, without newlines."""
        if not self.postgres:
            return Path(self.audit).read_bytes().splitlines()
        with self._sql() as conn:
            rows = conn.execute("SELECT line FROM audit_records ORDER BY pos").fetchall()
        return [r[0].encode() for r in rows]

    def records(self) -> list[dict]:
        return [json.loads(line) for line in self.lines()]

    def rewrite(self, lines: list[bytes]) -> None:
        """Replace the whole stored trail with ``lines`` (how a tamperer would)."""
        if not self.postgres:
            Path(self.audit).write_bytes(b"".join(line + b"\n" for line in lines))
            return
        with self._sql() as conn:
            conn.execute("DELETE FROM audit_records")
            for pos, line in enumerate(lines, start=1):
                conn.execute(
                    "INSERT INTO audit_records (pos, kind, line) VALUES (%s, 'turn', %s)",
                    (pos, line.decode()),
                )

    def _sql(self):
        import psycopg

        return psycopg.connect(str(self.db), autocommit=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path) -> Iterator[Store]:
    if request.param == "sqlite":
        yield Store("sqlite", tmp_path / "review.sqlite3", tmp_path / "audit.jsonl")
        return
    cluster: LocalCluster = request.getfixturevalue("pg_cluster")
    url = cluster.create_database(f"t{next(_names)}")
    try:
        yield Store("postgresql", url, url)
    finally:
        close_pools()
