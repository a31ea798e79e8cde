"""An append-only JSON Lines sink: one case per line, fsynced, for pipelines that tail a file.

Idempotency: the sink keeps the set of case ids already in the file. Before each append it
reads whatever bytes other writers added since its last look (under an exclusive ``flock`` on
POSIX), so two processes sharing one file still write each case once. A torn last line from a
crashed writer is skipped when reading and never glued to the next record.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from guardrail._fs import ensure_private, fsync_dir
from guardrail.exceptions import EscalationError
from guardrail.models import EscalationCase

try:  # POSIX only; elsewhere the in-process lock is all we have
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["JSONLSink", "read_cases"]


class JSONLSink:
    """Append each new case as one JSON line and fsync it before ``send`` returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._seen: set[str] = set()
        self._offset = 0  # bytes of the file already scanned into _seen
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"jsonl:{self.path}"

    def __repr__(self) -> str:
        return f"JSONLSink({str(self.path)!r})"

    def _catch_up(self, fh: IO[bytes]) -> bytes:
        """Read ids appended since the last scan; return the file's last byte (b'' if empty)."""
        size = fh.seek(0, os.SEEK_END)
        if size < self._offset:  # truncated or replaced: rescan from the start
            self._seen.clear()
            self._offset = 0
        fh.seek(self._offset)
        chunk = fh.read(size - self._offset)
        complete = chunk.rfind(b"\n") + 1  # only whole lines; a torn tail is left unscanned
        for line in chunk[:complete].splitlines():
            case_id = _case_id(line)
            if case_id is not None:
                self._seen.add(case_id)
        self._offset += complete
        if size == 0:
            return b""
        fh.seek(size - 1)
        return fh.read(1)

    def add(self, case: EscalationCase) -> bool:
        """Append ``case`` unless its id is already in the file; return True when written."""
        record = case.model_dump_json().encode("utf-8") + b"\n"
        try:
            created = not self.path.exists()
            ensure_private(self.path)  # turn text: owner-only, not the umask's 0644
            with self._lock, open(self.path, "a+b") as fh:
                if fcntl is not None:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                last = self._catch_up(fh)
                if case.case_id in self._seen:
                    return False
                if last not in (b"", b"\n"):
                    record = b"\n" + record  # end a torn line rather than extend it
                fh.write(record)
                fh.flush()
                os.fsync(fh.fileno())
                self._seen.add(case.case_id)
                self._offset = fh.tell()
            if created:
                with contextlib.suppress(OSError):  # best effort: the record is already safe
                    fsync_dir(self.path.parent)
        except OSError as exc:
            raise EscalationError(f"{self.path}: cannot append case {case.case_id}: {exc}") from exc
        return True

    async def send(self, case: EscalationCase) -> None:
        """Append ``case`` durably (idempotent on ``case_id``); raises EscalationError."""
        await asyncio.to_thread(self.add, case)


def read_cases(path: str | Path) -> list[EscalationCase]:
    """Every well-formed case in a JSONL sink file, in order (torn or bad lines skipped)."""
    out: list[EscalationCase] = []
    with open(path, "rb") as fh:
        for line in fh:
            try:
                out.append(EscalationCase.model_validate_json(line))
            except ValidationError:
                continue
    return out


def _case_id(line: bytes) -> str | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    case_id = obj.get("case_id") if isinstance(obj, dict) else None
    return case_id if isinstance(case_id, str) else None
