"""The audit log writer: append-only JSON Lines, one hash-chained record per line.

Each line is the record's canonical JSON (:func:`guardrail.canonical.canonical_json`), the
very bytes its hash is computed over. The audit trail is data, not a log stream: no logging
configuration can reformat or redirect it.

Durability and crashes. Each line is written with one ``os.write`` to a file opened with
``O_APPEND`` (no user-space buffer, so nothing to flush) and then ``os.fsync``-ed before
``append`` returns. A crash can still leave a partial last line. The writer never chains onto
one: the first append of a process reads the last line of an existing file and raises
:class:`~guardrail.exceptions.AuditError` if that line is torn or does not hash correctly.
Recovery is an operator's decision, not a silent repair: run ``guardrail audit verify``,
which prints the byte offset where the intact records end, keep a copy of the file, and
truncate it there (``truncate -s OFFSET FILE``).

Several writers per file. Threads share an :class:`AuditLog` (a lock serializes appends), and
several processes — say a server writing turns and the reviewer CLI writing resolutions — may
append to the same file: each append holds an exclusive ``flock`` on it, and a writer that
finds the file grown since its last append continues the chain from the new last record.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from guardrail._fs import fsync_dir
from guardrail.audit.chain import (
    GENESIS_HASH,
    FileLines,
    LinkError,
    parse_link,
    record_hash,
)
from guardrail.audit.record import AuditRecord, TextRedaction
from guardrail.canonical import canonical_json
from guardrail.exceptions import AuditError

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
_TAIL_CHUNK = 64 * 1024


class _LineWriter:
    """Writes one line to a file descriptor with one ``os.write`` (then fsyncs, if asked)."""

    def __init__(self, fsync: bool) -> None:
        self.fd: int | None = None
        self.fsync = fsync

    def write(self, message: str) -> None:
        if self.fd is None:  # pragma: no cover - AuditLog opens before logging
            raise AuditError("audit log is not open")
        data = memoryview((message + "\n").encode("utf-8"))
        while data:
            written = os.write(self.fd, data)
            data = data[written:]
        if self.fsync:
            os.fsync(self.fd)


def _read_tail(path: Path, size: int) -> tuple[int, str]:
    """``(seq, hash)`` of the last line of a non-empty log; refuses a torn or bad last line."""
    with path.open("rb") as fh:
        fh.seek(size - 1)
        if fh.read(1) != b"\n":
            raise AuditError(
                f"{path}: the last line is incomplete (no trailing newline), probably from a "
                "crash during a write; refusing to chain onto it. Run `guardrail audit verify "
                f"{path}` and truncate the file to the intact byte offset it reports"
            )
        end = size - 1  # the final newline
        start = end
        while start > 0:
            step = min(_TAIL_CHUNK, start)
            fh.seek(start - step)
            chunk = fh.read(step)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                start = start - step + cut + 1
                break
            start -= step
        fh.seek(start)
        line = fh.read(end - start)
    return chain_head(line, str(path))


def chain_head(line: bytes, where: str) -> tuple[int, str]:
    """``(seq, hash)`` of a log's last record, the point the next append chains onto; refuses
    a last record that is malformed or fails its own hash check."""
    try:
        link = parse_link(line)
    except LinkError as exc:
        raise AuditError(f"{where}: cannot continue the chain, last line: {exc}") from None
    if link.computed_hash != link.hash or link.seq < 1:
        raise AuditError(
            f"{where}: cannot continue the chain, the last line (seq {link.seq}) fails its own "
            "hash check; run `guardrail audit verify` on it"
        )
    return link.seq, link.hash


def seal(
    record: AuditRecord, redaction: TextRedaction, seq: int, prev_hash: str
) -> tuple[AuditRecord, dict[str, Any]]:
    """``record`` redacted, numbered ``seq`` and chained onto ``prev_hash``: the record as
    written and its JSON object (with ``hash``), whose canonical JSON is the stored line."""
    staged = record.redacted(redaction).model_copy(
        update={"seq": seq, "prev_hash": prev_hash, "hash": None}
    )
    body = staged.to_json_dict()
    try:
        body["hash"] = record_hash(body)
    except (TypeError, ValueError) as exc:
        raise AuditError(f"audit record cannot be serialized: {exc}") from exc
    return staged.model_copy(update={"hash": body["hash"]}), body


class AuditLog:
    """Append :class:`AuditRecord` lines to ``path``, hash-chained.

    ``redaction`` is a floor applied to every record appended (``"none"`` < ``"hash"`` <
    ``"drop"``; a record already redacted more strongly stays so). ``fsync=False`` trades
    crash durability for throughput and exists for benchmarks and throwaway logs.
    Nothing is opened until the first append.
    """

    def __init__(
        self, path: str | Path, *, redaction: TextRedaction = "none", fsync: bool = True
    ) -> None:
        self.path = Path(path)
        self.redaction: TextRedaction = redaction
        self._lock = threading.Lock()
        self._writer = _LineWriter(fsync)
        self._seq = 0
        self._head = GENESIS_HASH
        self._size = 0

    @property
    def location(self) -> str:
        """Where the records go, for messages."""
        return str(self.path)

    def source(self) -> FileLines:
        """The log's lines, for the verifier and crash recovery."""
        return FileLines(self.path)

    # --- lifecycle ------------------------------------------------------------------------

    def _open(self) -> int:
        if self._writer.fd is not None:
            return self._writer.fd
        existed = self.path.exists()
        try:
            fd = os.open(self.path, _OPEN_FLAGS, 0o600)
        except OSError as exc:
            raise AuditError(f"cannot open audit log {self.path}: {exc}") from exc
        try:
            size = os.fstat(fd).st_size
            seq, head = _read_tail(self.path, size) if size else (0, GENESIS_HASH)
            if not existed:
                fsync_dir(self.path.parent)
        except OSError as exc:
            os.close(fd)
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc
        except AuditError:
            os.close(fd)
            raise
        self._writer.fd, self._seq, self._head, self._size = fd, seq, head, size
        return fd

    def close(self) -> None:
        """Close the file; a later append reopens it and re-reads the last line."""
        with self._lock:
            if self._writer.fd is not None:
                os.close(self._writer.fd)
                self._writer.fd = None

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- appending ------------------------------------------------------------------------

    def append(self, record: AuditRecord) -> AuditRecord:
        """Redact, number, chain and durably write ``record``; return it as written.

        Raises :class:`AuditError` when the line cannot be written; in that case any partial
        bytes are cut off again, so the chain stays intact and the next append can succeed.
        """
        with self._lock, self._file_lock(self._open()) as fd:
            try:
                current = os.fstat(fd).st_size
            except OSError as exc:
                raise AuditError(f"cannot stat audit log {self.path}: {exc}") from exc
            if current != self._size:
                # Another writer (e.g. the reviewer CLI next to a running server) appended:
                # continue from its last record. The file lock makes this read-then-append
                # atomic across processes, so the chain never forks.
                self._seq, self._head = (
                    _read_tail(self.path, current) if current else (0, GENESIS_HASH)
                )
                self._size = current
            sealed, body = seal(record, self.redaction, self._seq + 1, self._head)
            try:
                self._writer.write(canonical_json(body))
            except OSError as exc:
                self._undo_partial_write(fd)
                raise AuditError(f"cannot write audit log {self.path}: {exc}") from exc
            self._seq += 1
            self._head = body["hash"]
            self._size = os.fstat(fd).st_size
            return sealed

    @contextlib.contextmanager
    def _file_lock(self, fd: int) -> Iterator[int]:
        """Hold an exclusive advisory lock on the log for one append (POSIX ``flock``)."""
        if fcntl is None:  # pragma: no cover - non-POSIX: one writing process per file
            yield fd
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield fd
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Let one process at a time run a read-then-append sequence (crash recovery): an
        exclusive ``flock`` on ``<log>.lock`` beside the log, not on the log itself, so the
        appends made inside keep their own per-append lock."""
        if fcntl is None:  # pragma: no cover - non-POSIX: one writing process per file
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    async def aappend(self, record: AuditRecord) -> AuditRecord:
        """:meth:`append` in a worker thread, so the fsync does not block the event loop."""
        return await asyncio.to_thread(self.append, record)

    def _undo_partial_write(self, fd: int) -> None:
        """Cut the file back to the last complete record; close it if even that fails."""
        try:
            os.ftruncate(fd, self._size)
            os.fsync(fd)
        except OSError:
            os.close(fd)
            self._writer.fd = None  # the next append re-reads the tail and refuses if torn
