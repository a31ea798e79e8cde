"""Small file-system helpers: durable writes (audit log, JSONL sink), private files for turn
text, and output paths checked before a long run rather than after it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "PRIVATE_MODE",
    "check_output_path",
    "check_outputs",
    "ensure_private",
    "fsync_dir",
    "write_private_text",
]

#: Mode of every file guardrail creates that holds turn text (questions, answers, contexts):
#: the review database, the fallback escalation log, the audit log.
PRIVATE_MODE = 0o600


def fsync_dir(directory: Path) -> None:
    """Persist a newly created file's directory entry (POSIX only; a no-op elsewhere).

    Errors propagate as :class:`OSError`; a caller for whom this is best effort suppresses them.
    """
    if os.name != "posix":  # pragma: no cover
        return
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def ensure_private(path: Path) -> None:
    """Create ``path`` readable by its owner only, if it does not exist yet.

    Call it before a library (SQLite, ``open``) creates the file with the process umask
    (usually 0644: readable by every local user). An existing file keeps its mode: an operator
    may have chosen one on purpose. SQLite gives its ``-wal`` and ``-shm`` files the database
    file's mode.
    """
    if str(path) == ":memory:" or str(path).startswith("file:") or path.exists():
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    except (FileExistsError, FileNotFoundError, NotADirectoryError):
        return  # created meanwhile, or no folder: the caller's own open reports that
    os.close(fd)


def write_private_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` owner-only, atomically: a temporary file created 0600
    next to it, synced, then renamed over ``path`` (a report or log that holds turn text).

    An existing ``path`` is replaced, so it ends 0600 too.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_output_path(path: Path, flag: str) -> None:
    """Raise ``ConfigError`` (one line, naming ``flag``) unless a file can be written at
    ``path`` — before any work, so a run is not lost to a bad output path at its end.

    Refused: an existing directory, a parent that is a file, and (for users other than root)
    a file or folder without write permission. Nothing is created.
    """
    from guardrail.exceptions import ConfigError

    if path.is_dir():
        raise ConfigError(f"{flag} {path}: is a directory; give a file path")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"{flag} {path}: {parent} is not a directory")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise ConfigError(f"{flag} {path}: {target} is not writable")


def check_outputs(paths: Mapping[str, str | Path | None]) -> None:
    """:func:`check_output_path` for each ``{flag: path}`` given (``None``: not asked for)."""
    for flag, path in paths.items():
        if path is not None:
            check_output_path(Path(path), flag)
