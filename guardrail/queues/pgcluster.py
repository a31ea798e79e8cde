"""A throw-away PostgreSQL cluster for tests and benchmarks: ``initdb`` + ``pg_ctl`` on a temp dir.

The server binaries come from the operating system (Debian's ``postgresql`` package puts them
in ``/usr/lib/postgresql/<version>/bin``, which is not on ``PATH``; ``scripts/ci_setup.sh``
installs it). The cluster listens on a Unix socket inside its own directory, and on
``127.0.0.1:<free port>`` when ``tcp=True``; it trusts local connections as user ``postgres``,
so nothing secret is involved, and it is deleted on :meth:`LocalCluster.stop`.

``initdb`` refuses to run as root; as root the cluster is created and run as the ``postgres``
system user (which the package creates) through ``runuser``.

    with LocalCluster() as cluster:
        url = cluster.create_database("demo")   # postgresql://postgres@/demo?host=...
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from guardrail.exceptions import ConfigError

__all__ = ["LocalCluster", "find_pg_bin", "missing_reason"]

_SYSTEM_USER = "postgres"


def find_pg_bin() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``, newest version first."""
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for directory in candidates:
        if all((directory / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return directory
    return None


def missing_reason() -> str | None:
    """Why a local cluster cannot be started here, or ``None`` when it can."""
    if find_pg_bin() is None:
        return "PostgreSQL server binaries not found (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(_SYSTEM_USER)
        except KeyError:
            return "running as root and there is no 'postgres' user to run initdb as"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing"
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install 'guardrail-rag[postgres]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalCluster:
    """One PostgreSQL server on a fresh data directory.

    ``durable=False`` turns ``fsync`` and ``synchronous_commit`` off (tests: nothing to keep);
    keep the default for measurements.
    """

    def __init__(
        self, *, tcp: bool = False, durable: bool = True, max_connections: int = 200
    ) -> None:
        reason = missing_reason()
        if reason is not None:
            raise ConfigError(f"cannot start a local PostgreSQL: {reason}")
        self.bin = find_pg_bin() or Path()
        self.tcp = tcp
        self.durable = durable
        self.max_connections = max_connections
        self.port = _free_port() if tcp else 5432
        self.root = Path(tempfile.mkdtemp(prefix="guardrail-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._as_root = os.geteuid() == 0
        self._started = False

    # --- running the server's tools -------------------------------------------------------------

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self._as_root:
            command = ["runuser", "-u", _SYSTEM_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ConfigError(
                f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}"
            )

    def start(self) -> LocalCluster:
        """initdb, then start the server and wait until it accepts connections."""
        if self._as_root:
            entry = pwd.getpwnam(_SYSTEM_USER)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.root.chmod(0o755)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        options = [
            f"-k {self.root}",
            f"-p {self.port}",
            f"-c listen_addresses={'127.0.0.1' if self.tcp else chr(39) * 2}",
            f"-c max_connections={self.max_connections}",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self._run(
            "pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.log),
            "-o", " ".join(options),
        )  # fmt: skip
        self._started = True
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its directory."""
        if self._started:
            self._started = False
            with contextlib.suppress(ConfigError):  # already gone
                self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data))
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- reaching it ----------------------------------------------------------------------------

    def url(self, dbname: str = "postgres") -> str:
        """A URL for ``dbname``: over TCP when the cluster listens there, else the socket."""
        if self.tcp:
            return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"
        return f"postgresql://postgres@/{dbname}?host={self.root}&port={self.port}"

    def create_database(self, name: str) -> str:
        """``CREATE DATABASE name``; return its URL."""
        import psycopg

        if not name.replace("_", "").isalnum():
            raise ConfigError(f"database name must be letters, digits and _: {name!r}")
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # name checked above
        return self.url(name)
