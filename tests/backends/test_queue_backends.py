"""The review queue, the outbox and the review sessions behave the same on SQLite and
PostgreSQL: idempotent enqueue, the claim/resolve state machine, exactly-once claims under
concurrent reviewers, the audit hook inside the resolving transaction."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from guardrail.exceptions import EscalationError
from guardrail.queues import (
    CaseNotFoundError,
    CaseResolution,
    CaseStateError,
    DatabaseOutbox,
    EscalationSink,
    ReviewError,
    ReviewQueue,
)
from guardrail.server.sessions import SessionStore
from tests.queues.conftest import build_case


async def test_send_is_idempotent_on_case_id(store):
    q = ReviewQueue(store.db)
    assert isinstance(q, EscalationSink)
    await q.send(build_case("a"))
    await q.send(build_case("a", answer="a different body, same id"))
    assert q.add(build_case("a")) is False
    cases = q.list()
    assert [c.case_id for c in cases] == ["a"]
    assert cases[0].state == "open" and cases[0].case.answer == "Take 2 g."


def test_list_counts_and_order(store):
    """Oldest first (insertion order breaks ties in created_at), filters by queue and state."""
    q = ReviewQueue(store.db)
    for cid, queue in [("m1", "medical"), ("l1", "legal"), ("m2", "medical")]:
        q.add(build_case(cid, queue=queue))
    q.claim("m1", "alice")
    assert [c.case_id for c in q.list()] == ["m1", "l1", "m2"]
    assert [c.case_id for c in q.list(queue="medical")] == ["m1", "m2"]
    assert [c.case_id for c in q.list(state="open", limit=1)] == ["l1"]
    assert q.counts() == {
        "medical": {"open": 1, "claimed": 1, "resolved": 0},
        "legal": {"open": 1, "claimed": 0, "resolved": 0},
    }
    with pytest.raises(ReviewError, match="unknown state"):
        q.list(state="closed")  # type: ignore[arg-type]


def test_state_machine(store):
    q = ReviewQueue(store.db)
    q.add(build_case("x"))
    with pytest.raises(CaseStateError, match="claim it first"):
        q.resolve("x", "approved")
    claimed = q.claim("x", "alice")
    assert claimed.state == "claimed" and claimed.reviewer == "alice" and claimed.claimed_at
    assert q.claim("x", "alice").reviewer == "alice"  # claiming your own again: no-op
    with pytest.raises(CaseStateError, match="already claimed by alice"):
        q.claim("x", "bob")
    with pytest.raises(CaseStateError, match="claimed by alice, not bob"):
        q.resolve("x", "approved", reviewer="bob")
    with pytest.raises(ReviewError, match="unchanged"):
        q.resolve("x", "edited", "Take 2 g.")
    res = q.resolve("x", "edited", "Take at most 4 g a day.", "dose fixed")
    assert (res.outcome, res.reviewer, res.final_answer) == (
        "edited",
        "alice",
        "Take at most 4 g a day.",
    )
    stored = q.get("x")
    assert stored.state == "resolved" and stored.note == "dose fixed" and stored.resolved_at
    with pytest.raises(CaseStateError, match="already resolved"):
        q.claim("x", "bob")
    with pytest.raises(CaseNotFoundError):
        q.get("nope")


def test_failing_audit_hook_rolls_the_resolution_back(store):
    """The hook runs inside the resolving transaction: if it raises, nothing was resolved."""

    def broken(resolution: CaseResolution) -> None:
        raise OSError("audit disk full")

    q = ReviewQueue(store.db, on_resolve=broken)
    q.add(build_case("x"))
    q.claim("x", "alice")
    with pytest.raises(OSError, match="disk full"):
        q.resolve("x", "approved")
    assert q.get("x").state == "claimed"


def test_racing_claims_of_one_case_have_exactly_one_winner(store):
    """Eight reviewers claim the same case at the same moment, twenty times over."""
    q = ReviewQueue(store.db)
    for round_ in range(20):
        q.add(build_case(f"c{round_}"))
        barrier = threading.Barrier(8)
        winners: list[str] = []
        losers: list[str] = []

        def claim(
            name: str, case_id=f"c{round_}", barrier=barrier, winners=winners, losers=losers
        ) -> None:
            barrier.wait()
            try:
                q.claim(case_id, name)
                winners.append(name)
            except CaseStateError:
                losers.append(name)

        threads = [threading.Thread(target=claim, args=(f"r{i}",)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(winners) == 1 and len(losers) == 7
        assert q.get(f"c{round_}").reviewer == winners[0]


def test_claim_next_hands_every_case_to_exactly_one_reviewer(store):
    """Eight reviewers take the next open case until none is left: 60 cases, 60 claims."""
    q = ReviewQueue(store.db)
    for i in range(60):
        q.add(build_case(f"n{i:02d}", queue="medical" if i % 3 else "legal"))
    taken: list[tuple[str, str]] = []
    barrier = threading.Barrier(8)

    def reviewer(name: str) -> None:
        barrier.wait()
        while (stored := q.claim_next(name)) is not None:
            assert stored.reviewer == name and stored.state == "claimed"
            taken.append((stored.case_id, name))
            q.resolve(stored.case_id, "approved")

    threads = [threading.Thread(target=reviewer, args=(f"r{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claims = Counter(case_id for case_id, _ in taken)
    assert len(claims) == 60 and set(claims.values()) == {1}
    assert {c.case_id: c.reviewer for c in q.list()} == dict(taken)
    assert q.counts()["medical"]["resolved"] == 40 and q.claim_next("late") is None


def test_claim_next_takes_the_oldest_of_a_queue(store):
    q = ReviewQueue(store.db)
    for cid, queue in [("m1", "medical"), ("l1", "legal"), ("m2", "medical")]:
        q.add(build_case(cid, queue=queue))
    assert q.claim_next("alice", "legal").case_id == "l1"  # type: ignore[union-attr]
    assert q.claim_next("bob").case_id == "m1"  # type: ignore[union-attr]
    with pytest.raises(ReviewError, match="reviewer name"):
        q.claim_next("  ")


def test_outbox_is_durable_and_idempotent(store):
    box = DatabaseOutbox(store.db)
    first = box.put("https://hooks.example.test/a", build_case("a"))
    again = box.put("https://hooks.example.test/a", build_case("a", answer="changed"))
    box.put("https://hooks.example.test/b", build_case("a"))
    box.put("https://hooks.example.test/a", build_case("b"))
    assert first.state == "pending" and again.case.answer == "Take 2 g."
    box.record_attempt("https://hooks.example.test/a", "a", "HTTP 503")
    box.record_attempt("https://hooks.example.test/a", "b", None)
    pending = box.pending()
    assert [(e.destination[-1], e.case.case_id) for e in pending] == [("a", "a"), ("b", "a")]
    assert pending[0].attempts == 1 and pending[0].last_error == "HTTP 503"
    assert [e.case.case_id for e in box.pending("https://hooks.example.test/a")] == ["a"]
    done = [e for e in box.list() if e.state == "delivered"]
    assert [e.case.case_id for e in done] == ["b"] and done[0].delivered_at


def test_review_sessions_start_check_and_end(store):
    sessions = SessionStore(store.db, max_age_s=60)
    sid = sessions.start("alice", "fp-1")
    other = sessions.start("alice", "fp-2")
    assert sessions.active(sid, "alice") == "fp-1" and not sessions.active(sid, "bob")
    sessions.end(sid)
    assert not sessions.active(sid, "alice") and sessions.active(other, "alice")
    assert not SessionStore(store.db, max_age_s=0).active(other, "alice")


def test_unreachable_store_is_a_clear_error(store, tmp_path):
    """A database that cannot be opened raises EscalationError naming the store."""
    target = (
        "postgresql://postgres@/no_such_database?host=" + str(tmp_path)
        if store.postgres
        else tmp_path / "missing-dir" / "q.sqlite3"
    )
    with pytest.raises(EscalationError) as info:
        ReviewQueue(target).add(build_case())
    assert "review queue" in str(info.value) or "no_such_database" in str(info.value)
