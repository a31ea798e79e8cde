"""AuditLog: round trips, redaction on disk, restarts, torn tails, threads and write failures."""

from __future__ import annotations

import asyncio
import json
import math
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import structlog
from audit_factories import ANSWER, FINAL, QUESTION, make_result

from guardrail.audit import AuditLog, AuditRecord, text_hash, verify_log
from guardrail.audit import log as log_module
from guardrail.exceptions import AuditError
from guardrail.models import Decision, GuardResult

WriteLog = Callable[..., Path]


def test_round_trip(tmp_path: Path, result: GuardResult):
    """Each line parses back into exactly the record append returned, and the chain verifies."""
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        written = [
            log.append(AuditRecord.from_result(result, policy_hash="ph")),
            log.append(AuditRecord.resolution("turn-0001", "dr.lee", "edited", "Ask.", "ok")),
            log.append(AuditRecord.event("policy_reloaded", policy="strict-medical")),
        ]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [AuditRecord.model_validate_json(x) for x in lines] == written
    assert [r.seq for r in written] == [1, 2, 3]
    assert written[1].prev_hash == written[0].hash and written[2].prev_hash == written[1].hash
    assert QUESTION in lines[0]  # non-ASCII kept as UTF-8, not \u-escaped ("Zoë")
    assert verify_log(path).ok


def test_constructor_does_no_io(tmp_path: Path):
    """Creating an AuditLog touches nothing; a bad path fails on the first append."""
    path = tmp_path / "missing-dir" / "audit.jsonl"
    log = AuditLog(path)
    assert not path.parent.exists()
    with pytest.raises(AuditError, match="cannot open"):
        log.append(AuditRecord.event("x"))


@pytest.mark.parametrize("mode", ["hash", "drop"])
def test_redaction_leaves_no_raw_text_in_the_file(tmp_path: Path, result: GuardResult, mode):
    """With 'hash' or 'drop', no question, answer or factoid text appears in the file bytes."""
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        log.append(AuditRecord.from_result(result, policy_hash="ph", redaction=mode))
        log.append(
            AuditRecord.resolution(
                "turn-0001", "r", "edited", FINAL, f"was: {ANSWER}", redaction=mode
            )
        )
    data = path.read_bytes()
    for raw in (QUESTION, ANSWER, FINAL, "Ibuprofen is always safe", "Take 800 mg"):
        assert raw.encode("utf-8") not in data
    assert (text_hash(QUESTION).encode() in data) is (mode == "hash")
    assert verify_log(path).ok


def test_log_redaction_is_a_floor(tmp_path: Path, result: GuardResult):
    """AuditLog(redaction='hash') hashes texts of records built without redaction."""
    path = tmp_path / "audit.jsonl"
    with AuditLog(path, redaction="hash") as log:
        written = log.append(AuditRecord.from_result(result, policy_hash="ph"))
        resolved = log.append(AuditRecord.resolution("c", "r", "edited", FINAL, "note"))
    assert written.text_redaction == "hash" and written.question == text_hash(QUESTION)
    assert resolved.review is not None and resolved.review.final_answer == text_hash(FINAL)
    assert QUESTION.encode() not in path.read_bytes() and FINAL.encode() not in path.read_bytes()


def test_restart_continues_the_chain(write_log: WriteLog):
    """A new AuditLog on an existing file continues seq and prev_hash from its last line."""
    path = write_log(3)
    last = json.loads(path.read_bytes().splitlines()[-1])
    with AuditLog(path) as log:
        nxt = log.append(AuditRecord.event("restarted"))
        log.append(AuditRecord.event("again"))
    assert nxt.seq == 4 and nxt.prev_hash == last["hash"]
    report = verify_log(path)
    assert report.ok and report.records == 5


def test_close_then_append_reopens(tmp_path: Path):
    """Closing and appending again on the same object continues the same chain."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log.append(AuditRecord.event("a"))
    log.close()
    assert log.append(AuditRecord.event("b")).seq == 2
    log.close()
    assert verify_log(path).records == 2


def test_writer_refuses_to_chain_onto_a_torn_line(write_log: WriteLog):
    """After a crash left a partial last line, append raises AuditError and writes nothing."""
    path = write_log(3)
    torn = path.read_bytes()[:-25]
    path.write_bytes(torn)
    with pytest.raises(AuditError, match="incomplete"):
        AuditLog(path).append(AuditRecord.event("after crash"))
    assert path.read_bytes() == torn


def test_writer_refuses_a_last_line_that_fails_its_hash(write_log: WriteLog):
    """A hand-edited last line is not silently chained onto."""
    path = write_log(2)
    data = path.read_bytes().replace(b'"score":0.92', b'"score":0.12')
    path.write_bytes(data)
    with pytest.raises(AuditError, match="fails its own hash check"):
        AuditLog(path).append(AuditRecord.event("x"))


def test_writer_finds_a_long_last_line(tmp_path: Path):
    """The tail reader handles a last line longer than its read chunk."""
    path = tmp_path / "audit.jsonl"
    with AuditLog(path, fsync=False) as log:
        log.append(AuditRecord.event("small"))
        big = make_result(question="q" * 200_000)
        log.append(AuditRecord.from_result(big, policy_hash="h"))
    with AuditLog(path) as log:
        assert log.append(AuditRecord.event("after")).seq == 3
    assert verify_log(path).ok


def test_concurrent_appends_from_threads_keep_the_chain(tmp_path: Path):
    """8 threads x 40 appends on one AuditLog give 320 records and an intact chain."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, fsync=False)
    barrier = threading.Barrier(8)

    def worker(t: int) -> None:
        barrier.wait()
        for i in range(40):
            log.append(AuditRecord.event(f"t{t}-{i}"))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    log.close()
    report = verify_log(path)
    assert report.ok and report.records == 320
    names = {json.loads(x)["event_name"] for x in path.read_bytes().splitlines()}
    assert len(names) == 320


async def test_aappend_from_many_tasks(tmp_path: Path):
    """Concurrent aappend calls from one event loop produce an intact chain."""
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        written = await asyncio.gather(
            *(log.aappend(AuditRecord.event(f"e{i}")) for i in range(20))
        )
    assert sorted(r.seq or 0 for r in written) == list(range(1, 21))
    assert verify_log(path).records == 20


def test_write_failure_raises_audit_error_and_keeps_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A disk error mid-line raises AuditError; the partial bytes are cut and the log goes on."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log.append(AuditRecord.event("before"))
    real_write = os.write

    def half_then_fail(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(log_module.os, "write", half_then_fail)
    with pytest.raises(AuditError, match="No space left"):
        log.append(AuditRecord.event("lost"))
    monkeypatch.setattr(log_module.os, "write", real_write)
    assert verify_log(path).ok and verify_log(path).records == 1
    assert log.append(AuditRecord.event("after")).seq == 2
    log.close()
    assert verify_log(path).records == 2


def test_a_second_writer_continues_the_chain(tmp_path: Path):
    """Two writers on one file (server + reviewer CLI) interleave without forking the chain."""
    path = tmp_path / "audit.jsonl"
    ours, theirs = AuditLog(path), AuditLog(path)
    ours.append(AuditRecord.event("ours"))
    theirs.append(AuditRecord.event("theirs"))
    again = ours.append(AuditRecord.event("ours again"))
    ours.close()
    theirs.close()
    assert again.seq == 3
    report = verify_log(path)
    assert report.ok and report.records == 3


_WRITER = """
import sys
from guardrail.audit import AuditLog, AuditRecord
log = AuditLog(sys.argv[1])
for i in range(int(sys.argv[2])):
    log.append(AuditRecord.event(f"{sys.argv[3]}-{i}"))
"""


def test_concurrent_processes_keep_one_intact_chain(tmp_path: Path):
    """Three processes appending at once produce one intact chain with every record."""
    import subprocess
    import sys

    path = tmp_path / "audit.jsonl"
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), "40", f"p{n}"])
        for n in range(3)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    report = verify_log(path)
    assert report.ok and report.records == 120


def test_unserializable_record_is_an_audit_error(tmp_path: Path):
    """A NaN score (not valid JSON) is refused with AuditError and nothing is written."""
    path = tmp_path / "audit.jsonl"
    with pytest.raises(ValueError, match="finite"):
        Decision(action="pass", flagged=False, score=math.nan, threshold=0.5, topic="x")
    # The models reject NaN; the writer still defends against one smuggled past validation.
    decision = Decision.model_construct(
        action="pass", actions=[], flagged=False, score=math.nan, threshold=0.5, topic="x"
    )
    with AuditLog(path) as log, pytest.raises(AuditError, match="cannot be serialized"):
        log.append(AuditRecord(kind="turn", decision=decision))
    assert path.read_bytes() == b""


def test_global_structlog_configuration_does_not_leak_in(tmp_path: Path):
    """An app's structlog.configure() neither changes the lines nor breaks the chain."""
    path = tmp_path / "audit.jsonl"
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.dev.ConsoleRenderer()],
        context_class=dict,
        cache_logger_on_first_use=False,
    )
    try:
        with AuditLog(path) as log:
            log.append(AuditRecord.event("x"))
    finally:
        structlog.reset_defaults()
    line = json.loads(path.read_bytes())
    assert "level" not in line and line["event_name"] == "x"
    assert verify_log(path).ok
