"""The audit trail behaves the same in a JSON Lines file and in PostgreSQL: one hash chain,
verified by one verifier that names the first altered, removed, inserted or reordered record,
kept intact when several processes append at once, and completed by crash recovery."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from guardrail.audit import AuditRecord, open_audit_log, verify_trail
from guardrail.audit.chain import canonical_json, record_hash
from guardrail.audit.recover import recorded_turns, recover_turns
from guardrail.exceptions import AuditError
from guardrail.queues import ReviewQueue
from tests.queues.conftest import build_case

ROOT = Path(__file__).resolve().parents[2]


def write(store, n: int) -> list[AuditRecord]:
    log = open_audit_log(store.audit)
    try:
        return [log.append(AuditRecord.event(f"event {i}")) for i in range(n)]
    finally:
        log.close()


def test_appended_records_chain_and_verify(store):
    written = write(store, 5)
    assert [r.seq for r in written] == [1, 2, 3, 4, 5]
    assert written[1].prev_hash == written[0].hash
    stored = store.records()
    assert [r["hash"] for r in stored] == [r.hash for r in written]
    assert [canonical_json(r) for r in stored] == [line.decode() for line in store.lines()]
    report = verify_trail(store.audit)
    assert report.ok and report.records == 5 and report.head_hash == written[-1].hash


def test_redaction_floor_applies(store):
    log = open_audit_log(store.audit, redaction="drop")
    rec = log.append(AuditRecord.resolution("c1", "alice", "edited", "secret text", "a note"))
    assert rec.review is not None and rec.review.final_answer is None
    assert "secret text" not in b"".join(store.lines()).decode()


@pytest.mark.parametrize(
    ("tamper", "line", "problem"),
    [
        ("alter", 3, "hash mismatch"),
        ("remove", 2, "seq gap"),
        ("swap", 2, "reordered: expected seq 2, found seq 3; seq 2 is at line 3"),
        ("duplicate", 3, "duplicate of line 2"),
    ],
)
def test_tampering_is_named_at_the_same_line(store, tamper, line, problem):
    write(store, 5)
    lines = store.lines()
    if tamper == "alter":
        obj = json.loads(lines[2])
        obj["event_name"] = "nothing happened"
        lines[2] = canonical_json(obj).encode()
    elif tamper == "remove":
        del lines[1]
    elif tamper == "swap":
        lines[1], lines[2] = lines[2], lines[1]
    else:
        lines.insert(2, lines[1])
    store.rewrite(lines)
    report = verify_trail(store.audit)
    assert not report.ok and report.first_bad_line == line
    assert report.problem is not None and report.problem.startswith(problem)


def test_anchor_catches_a_cut_tail(store):
    write(store, 4)
    anchor = verify_trail(store.audit).head_hash
    assert verify_trail(store.audit, anchor=anchor).ok
    store.rewrite(store.lines()[:-1])
    assert verify_trail(store.audit).ok  # the chain alone cannot see it
    report = verify_trail(store.audit, anchor=anchor)
    assert not report.ok and report.problem is not None and "not found" in report.problem


def test_writer_refuses_to_chain_onto_a_forged_last_record(store):
    write(store, 2)
    lines = store.lines()
    obj = json.loads(lines[-1])
    obj["event_name"] = "forged"
    lines[-1] = canonical_json(obj).encode()
    store.rewrite(lines)
    with pytest.raises(AuditError, match="fails its own hash check"):
        open_audit_log(store.audit).append(AuditRecord.event("after"))
    obj["hash"] = record_hash(obj)  # a re-hashed forgery chains (the anchor is what catches it)
    lines[-1] = canonical_json(obj).encode()
    store.rewrite(lines)
    assert open_audit_log(store.audit).append(AuditRecord.event("after")).seq == 3


def test_concurrent_writer_processes_keep_one_chain(store):
    """Three processes (as on three hosts) append 40 records each at once: one chain of 120."""
    script = textwrap.dedent(
        """
        import sys
        from guardrail.audit import AuditRecord, open_audit_log
        log = open_audit_log(sys.argv[1], fsync=False)
        for i in range(40):
            log.append(AuditRecord.event(f"{sys.argv[2]}-{i}"))
        log.close()
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(store.audit), f"w{w}"], cwd=ROOT)
        for w in range(3)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    report = verify_trail(store.audit)
    assert report.ok and report.records == 120
    names = [r["event_name"] for r in store.records()]
    assert sorted(names) == sorted(f"w{w}-{i}" for w in range(3) for i in range(40))
    for w in range(3):  # each writer's own records stay in its order
        mine = [n for n in names if n.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{i}" for i in range(40)]


def test_recovery_adds_the_turns_a_crash_left_out(store):
    """A case in the queue whose turn record is missing gets a 'turn_recovered' record, once."""
    queue = ReviewQueue(store.db)
    queue.add(build_case("lost-turn"))
    write(store, 1)
    assert "lost-turn" not in recorded_turns(store.audit)
    log = open_audit_log(store.audit)
    assert recover_turns(log, queue) == ["lost-turn"]
    assert recover_turns(log, queue) == []
    assert "lost-turn" in recorded_turns(store.audit)
    assert store.records()[-1]["event_name"] == "turn_recovered"
    assert verify_trail(store.audit).ok


def test_recoveries_running_at_once_recover_each_turn_once(store):
    """Replicas starting together each run recovery: every lost turn is recorded once."""
    queue = ReviewQueue(store.db)
    lost = [f"lost-{i}" for i in range(6)]
    for case_id in lost:
        queue.add(build_case(case_id))
    barrier = threading.Barrier(4)

    def recover() -> list[str]:
        log = open_audit_log(store.audit)
        try:
            barrier.wait()
            return recover_turns(log, ReviewQueue(store.db))
        finally:
            log.close()

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: recover(), range(4)))
    assert sorted(case for done in results for case in done) == lost
    recovered = [r["audit_id"] for r in store.records() if r.get("event_name") == "turn_recovered"]
    assert sorted(recovered) == lost
    assert verify_trail(store.audit).ok


def test_many_threads_resolving_at_once_all_reach_the_trail(store):
    """More resolving threads than a process keeps connections (each resolution appends its
    audit record inside its queue transaction): none waits forever, every one is recorded."""
    import threading

    from guardrail.audit.review import record_resolutions
    from guardrail.storage import PG_POOL_MAX

    n = PG_POOL_MAX + 4
    queue = ReviewQueue(store.db, on_resolve=record_resolutions(open_audit_log(store.audit)))
    for i in range(n):
        queue.add(build_case(f"r{i}"))
        queue.claim(f"r{i}", f"reviewer-{i}")
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def resolve(i: int) -> None:
        barrier.wait()
        try:
            queue.resolve(f"r{i}", "approved")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=resolve, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and not any(t.is_alive() for t in threads)
    report = verify_trail(store.audit)
    assert report.ok and report.records == n
    assert sorted(r["resolution"]["case_id"] for r in store.records()) == sorted(
        f"r{i}" for i in range(n)
    )
