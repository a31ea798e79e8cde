"""Small file-system helpers: durable writes (audit log, JSONL sink), private files for turn
text, and output paths checked before a long run rather than after it.

Command outputs (reports, JSON summaries, re-scored logs, schemas) go only to regular files:
a device, a FIFO, a socket or anything on a kernel file system (``/proc``, ``/sys``, ``/dev``)
is refused, whether named directly or through a symbolic link, before the run and again just
before writing. The text is written to a temporary file in the output's own directory, synced,
then renamed over the path, so a failed write (a full disk) leaves the previous file intact and
no temporary file behind; the free space of that file system is checked before the run (at
least :data:`MIN_FREE_BYTES`) and again before writing (at least the output's size). Any
failure is a one-line :class:`~guardrail.exceptions.ConfigError` naming the flag and the path.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "PRIVATE_MODE",
    "check_output_path",
    "check_outputs",
    "ensure_private",
    "fsync_dir",
    "write_output_text",
    "write_private_text",
]

#: Free space an output's file system must have before a run starts.
MIN_FREE_BYTES = 1 << 20
#: Kernel file systems: never a place for an output file.
_KERNEL_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
#: Mode of outputs that hold no turn text (summaries, schemas).
_PUBLIC_MODE = 0o644

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


def write_private_text(path: Path, text: str, flag: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``path`` owner-only (0600; a report or log that holds turn
    text), through :func:`write_output_text`. An existing ``path`` is replaced, so it ends
    0600 too."""
    write_output_text(path, text, flag, private=True)


def write_output_text(path: Path, text: str, flag: str, *, private: bool = False) -> None:
    """Write ``text`` (UTF-8) to the regular file ``path`` atomically (see the module
    docstring); ``ConfigError`` naming ``flag`` when it cannot be written."""
    check_output_path(path, flag)
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    free = _free_bytes(path.parent)
    if free is not None and free < len(data):
        raise _error(flag, path, f"{len(data)} bytes to write, {free} free on its file system")
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _error(flag, path, f"cannot create a file beside it ({exc.strerror})") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), PRIVATE_MODE if private else _PUBLIC_MODE)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _refuse_special(path, flag)  # replaced by something else during the run?
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _error(flag, path, f"could not write it ({exc.strerror or exc})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _error(flag: str, path: Path, problem: str) -> Exception:
    from guardrail.exceptions import ConfigError

    return ConfigError(f"{flag} {path}: {problem}")


def _free_bytes(directory: Path) -> int | None:
    """Bytes free to an unprivileged writer on ``directory``'s file system, or ``None`` when
    that cannot be known (no ``statvfs`` here, or the folder does not exist yet)."""
    try:
        got = os.statvfs(directory)
    except (AttributeError, OSError):
        return None
    return int(got.f_bavail) * int(got.f_frsize)


def _refuse_special(path: Path, flag: str) -> None:
    """``ConfigError`` when ``path`` (links followed) is on a kernel file system or exists as
    anything but a regular file or a folder."""
    resolved = Path(os.path.realpath(path))
    for root in _KERNEL_ROOTS:
        if resolved == root or root in resolved.parents:
            raise _error(flag, path, f"is on a kernel file system ({root}); give a regular file")
    try:
        mode = resolved.stat().st_mode
    except OSError:
        return  # does not exist yet
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise _error(flag, path, "is not a regular file (a device, FIFO or socket)")


def check_output_path(path: Path, flag: str) -> None:
    """Raise ``ConfigError`` (one line, naming ``flag``) unless a file can be written at
    ``path`` — before any work, so a run is not lost to a bad output path at its end.

    Refused: a device, FIFO or socket, a path on a kernel file system, an existing directory,
    a parent that is a file, (for users other than root) a file or folder without write
    permission, and a file system with less than :data:`MIN_FREE_BYTES` free. Nothing is
    created.
    """
    _refuse_special(path, flag)
    if path.is_dir():
        raise _error(flag, path, "is a directory; give a file path")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise _error(flag, path, f"{parent} is not a directory")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise _error(flag, path, f"{target} is not writable")
    free = _free_bytes(parent)
    if free is not None and free < MIN_FREE_BYTES:
        raise _error(flag, path, f"only {free} bytes free on its file system")


def check_outputs(paths: Mapping[str, str | Path | None]) -> None:
    """:func:`check_output_path` for each ``{flag: path}`` given (``None``: not asked for)."""
    for flag, path in paths.items():
        if path is not None:
            check_output_path(Path(path), flag)
