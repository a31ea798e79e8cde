"""Storage for the review queue, the webhook outbox, the review sessions and the PostgreSQL audit
trail: an SQLite file or PostgreSQL.

A *target* names the store: a path (the embedded default, one SQLite file) or a URL
``postgresql://...`` (shared by every process on every host that can reach the server).
:func:`open_database` picks the backend; the stores run the same SQL on both, written
with ``?`` placeholders (turned into ``%s`` for psycopg) and with ``INSERT ... ON CONFLICT DO
NOTHING``, which both engines understand. What differs is kept here, in a few attributes:

* :attr:`Database.for_update` — ``""`` on SQLite (a write transaction there is ``BEGIN
  IMMEDIATE``, which already holds the one writer lock) and ``" FOR UPDATE"`` on PostgreSQL (a
  row lock, so two reviewers on two hosts cannot both claim the same case);
* :attr:`Database.skip_locked` — ``" FOR UPDATE SKIP LOCKED"`` on PostgreSQL, so reviewers
  asking for "the next open case" each get a different one without waiting for each other;
* :attr:`Database.tiebreak` — the insertion-order column (``rowid`` / a ``BIGSERIAL``).

PostgreSQL connections come from one small pool per URL and process (psycopg 3 and
psycopg-pool, the ``postgres`` extra); a read runs in autocommit, a write in one transaction
(``READ COMMITTED`` plus the row locks above). Errors from either engine become
:class:`~guardrail.exceptions.EscalationError` naming the store, never the password.
"""

from __future__ import annotations

import atexit
import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from guardrail._fs import ensure_private
from guardrail.exceptions import ConfigError, EscalationError

__all__ = [
    "BUSY_TIMEOUT_S",
    "Connection",
    "Database",
    "PostgresDatabase",
    "SQLiteDatabase",
    "Target",
    "close_pools",
    "connect",
    "describe_target",
    "is_postgres_url",
    "open_database",
    "parse_target",
    "require_store",
    "transaction",
]

#: A store's location: a file path, or a ``postgresql://`` URL (kept as a string).
Target = str | Path

#: How long a connection waits for another writer (and for a fresh file's switch to WAL).
BUSY_TIMEOUT_S = 30.0
_PG_SCHEMES = ("postgresql://", "postgres://")
#: Connections one process keeps open to one PostgreSQL URL at most.
PG_POOL_MAX = 8
#: Seconds a new PostgreSQL connection may take.
PG_CONNECT_TIMEOUT_S = 10


def is_postgres_url(target: Target) -> bool:
    """Whether ``target`` is a PostgreSQL URL rather than a file path."""
    return isinstance(target, str) and target.lower().startswith(_PG_SCHEMES)


def parse_target(value: str) -> Target:
    """A command-line value as a target: the URL as given, anything else as a path."""
    return value if is_postgres_url(value) else Path(value)


def describe_target(target: Target) -> str:
    """``target`` fit for messages and logs: a URL loses its password."""
    if not is_postgres_url(target):
        return str(target)
    parts = urlsplit(str(target))
    if parts.password is None:
        return str(target)
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def require_store(target: Target, what: str, flag: str) -> Target:
    """``target`` when it is a URL or an existing file; a missing file is a user error (a typo
    must not silently start an empty store)."""
    if not is_postgres_url(target) and not Path(target).is_file():
        raise ConfigError(f"no {what} at {target} (pass {flag} PATH or a postgresql:// URL)")
    return target


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the stores use of a connection; rows read as ``row["column"]`` on both engines."""

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Cursor: ...


# --- SQLite -----------------------------------------------------------------------------------


def connect(path: Path) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode, WAL journal, ``synchronous=FULL``, 30 s busy wait.

    Transactions are explicit (``BEGIN IMMEDIATE``) so writers take the lock up front and a
    read-then-write never fails half-way with ``SQLITE_BUSY``.
    """
    ensure_private(path)  # turn text: owner-only, not the umask's 0644
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        mode = _journal_mode_wal(conn)
    except BaseException:
        conn.close()
        raise
    if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only or network FS
        conn.close()
        raise EscalationError(f"{path}: SQLite refused WAL mode (got {mode!r})")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _journal_mode_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL, retrying "database is locked" for up to :data:`BUSY_TIMEOUT_S`.

    Changing the journal mode of a new file needs an exclusive lock, and SQLite reports
    ``SQLITE_BUSY`` for it at once instead of calling the busy handler, so several connections
    opening a fresh file together (seen with threads) would fail without this loop. Once the
    file is in WAL mode (it stays so) the pragma is a no-op.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolling back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class Database:
    """One store's schema on one backend: :meth:`read` and :meth:`write` hand out connections.

    ``what`` names the store in error messages ("review queue", "outbox").
    """

    backend = "sqlite"
    for_update = ""
    skip_locked = ""
    tiebreak = "rowid"

    def __init__(self, target: Target, what: str) -> None:
        self.target = target
        self.what = what
        self.location = describe_target(target)

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:  # pragma: no cover - overridden
        raise NotImplementedError
        yield

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:  # pragma: no cover - overridden
        raise NotImplementedError
        yield


class SQLiteDatabase(Database):
    """One SQLite file whose schema script runs on first use; a fresh connection per operation.

    ``sqlite3`` connections must not be shared between threads, so every operation opens its
    own short-lived one. SQLite errors become :class:`EscalationError`.
    """

    def __init__(self, path: Path, schema: str, what: str) -> None:
        super().__init__(path, what)
        self.path = path
        self.schema = schema
        self._ready = False
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = connect(self.path)
        except sqlite3.Error as exc:
            raise EscalationError(f"{self.path}: cannot open {self.what}: {exc}") from exc
        try:
            if not self._ready:
                with self._lock:
                    if not self._ready:
                        conn.executescript(self.schema)
                        self._ready = True
            yield conn
        except sqlite3.Error as exc:
            raise EscalationError(f"{self.path}: {self.what} error: {exc}") from exc
        finally:
            conn.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        with self.read() as conn, transaction(conn):
            yield conn


# --- PostgreSQL -------------------------------------------------------------------------------

_pools: dict[tuple[str, str], Any] = {}
_pools_lock = threading.Lock()


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401 - checked here so the error names the extra
    except ImportError as exc:
        raise ConfigError(
            f"a postgresql:// store needs the postgres extra ({exc.name} is missing):"
            " pip install 'guardrail-rag[postgres]'"
        ) from exc
    return psycopg


def _pool(url: str, role: str) -> Any:
    """The process's connection pool for ``url`` and ``role`` (opened on first use, closed at
    exit). The audit trail has a pool of its own: a resolution appends its audit record while
    its queue transaction holds a connection, and with one shared pool, as many resolving
    threads as the pool has connections would each wait for a second one forever.

    The first use connects once directly, so a wrong URL, a refused connection or a bad
    password fails at once with the server's own words instead of a pool timeout later.
    """
    with _pools_lock:
        pool = _pools.get((url, role))
        if pool is None:
            psycopg = _psycopg()
            psycopg.connect(url, connect_timeout=PG_CONNECT_TIMEOUT_S).close()
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool

            pool = ConnectionPool(
                url,
                min_size=1,
                max_size=PG_POOL_MAX,
                kwargs={"row_factory": dict_row, "autocommit": True},
                open=False,
                name=f"guardrail-{role}",
            )
            pool.open(wait=False)
            _pools[(url, role)] = pool
        return pool


def close_pools() -> None:
    """Close every PostgreSQL pool this process opened (a later use opens a new one)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


atexit.register(close_pools)


class _PgConnection:
    """A psycopg connection speaking the stores' ``?`` placeholders."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        cursor: Cursor = self._conn.execute(sql.replace("?", "%s"), params)
        return cursor


#: Schemas this process already created, by (url, schema text).
_created: set[tuple[str, str]] = set()
#: pg_advisory_xact_lock key serialising schema creation ("guardrai" in ASCII).
_SCHEMA_LOCK = 0x6775617264726169


class PostgresDatabase(Database):
    """A store's tables in a PostgreSQL database, reached through a pooled connection.

    The schema (``CREATE TABLE IF NOT EXISTS ...``) runs once per process, under an advisory
    lock: ``IF NOT EXISTS`` alone is not safe when two processes create the same table at once.
    """

    backend = "postgresql"
    for_update = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    tiebreak = "pos"

    def __init__(self, url: str, schema: str, what: str, *, role: str = "stores") -> None:
        super().__init__(url, what)
        self.url = url
        self.schema = schema
        self.role = role
        self._psycopg = _psycopg()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        psycopg = self._psycopg
        try:
            with _pool(self.url, self.role).connection(timeout=BUSY_TIMEOUT_S) as conn:
                if (self.url, self.schema) not in _created:
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                        conn.execute(self.schema)
                    _created.add((self.url, self.schema))
                yield conn
        except psycopg.Error as exc:  # psycopg_pool.PoolTimeout is one too
            raise EscalationError(f"{self.location}: {self.what} error: {_one_line(exc)}") from exc

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        with self._connection() as conn:
            yield _PgConnection(conn)

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        with self._connection() as conn, conn.transaction():
            yield _PgConnection(conn)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def open_database(target: Target, *, sqlite: str, postgres: str, what: str) -> Database:
    """The store at ``target``: its SQLite schema script for a path, its PostgreSQL one for a
    ``postgresql://`` URL."""
    if is_postgres_url(target):
        return PostgresDatabase(str(target), postgres, what)
    return SQLiteDatabase(Path(target), sqlite, what)
