"""Read a large JSON Lines audit log on every core: byte ranges cut at line ends, one
:class:`AuditFigures` per range in its own process, merged in order.

JSON decoding is most of a report's time (about half on a 100,000-turn log) and the GIL keeps
it on one core; separate processes are the only way to use a second one. Ranges are cut at
newlines, so no record is split, and the figures are sums, minima and maxima that merge
exactly — the merged report equals the one-process report. Small files are read in-process:
starting workers costs more than it saves.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path

from guardrail.report.audit_figures import AuditFigures

__all__ = ["PARALLEL_MIN_BYTES", "read_jsonl"]

#: Files smaller than this are read in one process.
PARALLEL_MIN_BYTES = 32 * 1024 * 1024


def _ranges(path: Path, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges of the file, each starting at a line start."""
    size = path.stat().st_size
    cuts = [0]
    with path.open("rb") as fh:
        for i in range(1, parts):
            fh.seek(max(size * i // parts, cuts[-1]))
            fh.readline()  # move to the next line start
            cuts.append(min(fh.tell(), size))
    cuts.append(size)
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _read_range(
    path: Path, start: int, end: int, since: datetime | None, until: datetime | None
) -> AuditFigures:
    figures = AuditFigures(since=since, until=until)
    with path.open("rb") as fh:
        fh.seek(start)
        pos = start
        for line in fh:
            if pos >= end:
                break
            pos += len(line)
            figures.add_line(line)
    return figures


def read_jsonl(
    path: Path,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    workers: int | None = None,
) -> AuditFigures:
    """The figures of the JSON Lines log at ``path``, read by ``workers`` processes (default:
    the CPU count, one for a file under :data:`PARALLEL_MIN_BYTES`)."""
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n <= 1 or path.stat().st_size < PARALLEL_MIN_BYTES:
        return _read_range(path, 0, path.stat().st_size, since, until)
    ranges = _ranges(path, n)
    method = "fork" if sys.platform == "linux" else "spawn"
    with ProcessPoolExecutor(len(ranges), mp_context=multiprocessing.get_context(method)) as pool:
        futures = [pool.submit(_read_range, path, a, b, since, until) for a, b in ranges]
        parts = [f.result() for f in futures]
    total = parts[0]
    for part in parts[1:]:
        total.merge(part)
    return total
