"""Small file-system helpers shared by the durable writers (audit log, JSONL sink)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fsync_dir"]


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
