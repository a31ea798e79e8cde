"""Audit log write throughput: records/s appended, and records/s verified.

Usage::

    python -m benchmarks.audit_write [--records 1000] [--dir DIR] [--out FILE.json]

Each scenario appends the same realistic turn record (two factoids, three judge calls, a
decision) to a fresh file in ``--dir`` (default: the system temp dir) and reports records/s,
bytes per record and the mean latency of one append. fsync cost depends entirely on the
filesystem under ``--dir``; its type is printed with the results, so compare like with like.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks._common import write_results
from guardrail.audit import AuditLog, AuditRecord, TextRedaction, verify_log
from tests.audit.audit_factories import make_result


def _filesystem(path: Path) -> str:
    """The mount's filesystem type, from /proc/mounts where available."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return "unknown"
    best, kind = "", "unknown"
    target = str(path.resolve())
    for line in mounts:
        parts = line.split()
        if len(parts) >= 3 and target.startswith(parts[1]) and len(parts[1]) > len(best):
            best, kind = parts[1], parts[2]
    return kind


def _record() -> AuditRecord:
    return AuditRecord.from_result(make_result(), policy_hash="f" * 64)


def _sequential(log: AuditLog, n: int) -> None:
    record = _record()
    for _ in range(n):
        log.append(record)


def _threads(count: int) -> Callable[[AuditLog, int], None]:
    def run(log: AuditLog, n: int) -> None:
        record = _record()
        per = n // count

        def work() -> None:
            for _ in range(per):
                log.append(record)

        threads = [threading.Thread(target=work) for _ in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    return run


def _async_tasks(count: int) -> Callable[[AuditLog, int], None]:
    def run(log: AuditLog, n: int) -> None:
        record = _record()
        per = n // count

        async def task() -> None:
            for _ in range(per):
                await log.aappend(record)

        async def main() -> None:
            await asyncio.gather(*(task() for _ in range(count)))

        asyncio.run(main())

    return run


SCENARIOS: list[tuple[str, bool, TextRedaction, Callable[[AuditLog, int], None]]] = [
    ("append, 1 thread", True, "none", _sequential),
    ("append, 4 threads", True, "none", _threads(4)),
    ("aappend, 16 tasks", True, "none", _async_tasks(16)),
    ("append, 1 thread, redaction=hash", True, "hash", _sequential),
    ("append, 1 thread, fsync off", False, "none", _sequential),
    ("append, 4 threads, fsync off", False, "none", _threads(4)),
]


def run(records: int, directory: Path) -> dict[str, object]:
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        for i, (name, fsync, redaction, fn) in enumerate(SCENARIOS):
            path = Path(tmp) / f"bench-{i}.jsonl"
            log = AuditLog(path, redaction=redaction, fsync=fsync)
            log.append(_record())  # open the file and read the (empty) tail outside the timing
            start = time.perf_counter()
            fn(log, records)
            elapsed = time.perf_counter() - start
            log.close()
            report = verify_log(path)
            if not report.ok:
                raise SystemExit(f"{name}: chain broken: {report.describe()}")
            written = report.records - 1
            rows.append(
                {
                    "scenario": name,
                    "fsync": fsync,
                    "records": written,
                    "seconds": round(elapsed, 4),
                    "records_per_s": round(written / elapsed, 1),
                    "mean_append_ms": round(elapsed / written * 1000, 4),
                    "bytes_per_record": round(path.stat().st_size / report.records),
                }
            )
        # Verification speed, on the last (fsync-off) file.
        start = time.perf_counter()
        report = verify_log(path)
        verify_s = time.perf_counter() - start
    return {
        "benchmark": "audit_write",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "directory": str(directory),
        "filesystem": _filesystem(directory),
        "records_per_scenario": records,
        "scenarios": rows,
        "verify": {
            "records": report.records,
            "seconds": round(verify_s, 4),
            "records_per_s": round(report.records / verify_s, 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000, help="records per scenario")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/audit_write.json"))
    args = parser.parse_args()
    result = run(args.records, args.dir)
    print(
        f"audit log writes: {args.records} records per scenario, dir {result['directory']} "
        f"({result['filesystem']}), Python {result['python']}, {result['cpu_count']} CPUs"
    )
    header = f"{'scenario':<36} {'records/s':>10} {'ms/append':>10} {'bytes/rec':>10}"
    print(header)
    print("-" * len(header))
    for row in result["scenarios"]:
        print(
            f"{row['scenario']:<36} {row['records_per_s']:>10,.0f} "
            f"{row['mean_append_ms']:>10.3f} {row['bytes_per_record']:>10}"
        )
    v = result["verify"]
    print(f"{'verify_log':<36} {v['records_per_s']:>10,.0f}   ({v['records']} records)")
    print(f"wrote {write_results('audit_write', result, args.out)}")


if __name__ == "__main__":
    main()
