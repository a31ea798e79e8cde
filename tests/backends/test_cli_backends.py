"""``guardrail review ...`` and ``guardrail audit ...`` give the same answers on both backends."""

from __future__ import annotations

import json

import pytest

from guardrail.audit.chain import canonical_json
from guardrail.cli import main
from guardrail.queues import ReviewQueue
from tests.queues.conftest import build_case


@pytest.fixture
def seeded(store):
    q = ReviewQueue(store.db)
    q.add(build_case("m-1", queue="medical"))
    q.add(build_case("l-1", queue="legal"))
    q.add(build_case("m-2", queue="medical"))
    return store


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_review_workflow_and_audit_verify(capsys, seeded):
    s = seeded
    both = ("--db", s.db, "--audit-log", s.audit)
    code, out, _ = run(capsys, "review", "list", *both, "--json")
    assert code == 0 and [r["case"]["case_id"] for r in json.loads(out)] == ["m-1", "l-1", "m-2"]
    assert run(capsys, "review", "claim", "m-1", *both, "--reviewer", "alice")[0] == 0
    code, _, err = run(capsys, "review", "claim", "m-1", *both, "--reviewer", "bob")
    assert code == 2 and err.strip() == ("guardrail: error: case 'm-1' is already claimed by alice")
    code, out, _ = run(capsys, "review", "next", *both, "--reviewer", "bob", "--queue", "medical")
    assert code == 0 and "claimed m-2 for bob" in out
    code, out, _ = run(capsys, "review", "resolve", "m-1", *both, "--approve", "--note", "ok")
    assert code == 0 and "approved by alice" in out
    code, out, _ = run(capsys, "review", "resolve", "m-2", *both, "--reject")
    assert code == 0 and "rejected by bob" in out
    code, out, _ = run(capsys, "review", "show", "m-1", *both, "--json")
    assert json.loads(out)["state"] == "resolved" and json.loads(out)["note"] == "ok"
    code, out, _ = run(capsys, "review", "list", *both, "--state", "all")
    assert code == 0 and "3 case(s)" in out

    code, out, _ = run(capsys, "audit", "verify", s.audit)
    assert code == 0 and out.splitlines()[0] == "OK: 2 records, chain intact"
    outcomes = [r["resolution"]["outcome"] for r in s.records()]
    assert outcomes == ["approved", "rejected"]

    lines = s.lines()
    obj = json.loads(lines[0])
    obj["resolution"]["outcome"] = "edited"
    s.rewrite([canonical_json(obj).encode(), lines[1]])
    code, out, _ = run(capsys, "audit", "verify", s.audit)
    assert code == 1 and out.startswith("FAIL: line 1 (audit_id ")
    assert "hash mismatch" in out and "0 records intact before it" in out


def test_review_next_on_an_empty_queue_and_unknown_case(capsys, store):
    both = ("--db", store.db, "--audit-log", store.audit)
    ReviewQueue(store.db).list()  # create the (empty) store
    code, out, _ = run(capsys, "review", "next", *both, "--reviewer", "alice")
    assert code == 1 and "no open case" in out
    code, _, err = run(capsys, "review", "show", "nope", *both)
    assert code == 2 and err.strip() == "guardrail: error: no case 'nope' in the review queue"


def test_audit_recover_fills_the_gap(capsys, seeded):
    code, out, _ = run(capsys, "audit", "recover", seeded.audit, "--db", seeded.db)
    assert code == 0 and out.strip() == "recovered 3 turn record(s): m-1, l-1, m-2"
    code, out, _ = run(capsys, "audit", "recover", seeded.audit, "--db", seeded.db)
    assert out.strip() == "recovered 0 turn record(s)"
    assert run(capsys, "audit", "verify", seeded.audit)[1].startswith("OK: 3 records")


def test_unreachable_postgres_is_one_line(capsys, tmp_path, pg_cluster):
    """A URL nothing listens at: one error line naming the store (no password), exit 1.
    (``pg_cluster``: skips, like the rest, where PostgreSQL or psycopg is missing.)"""
    url = f"postgresql://someone:hunter2@/guardrail?host={tmp_path}"
    code, _, err = run(capsys, "review", "list", "--db", url)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "review queue" in err and "hunter2" not in err and "someone:***@" in err


def test_probe_sends_hallucinations_to_either_backend(capsys, store):
    """`guardrail probe --review-db` takes a path or a postgresql:// URL like every --db."""
    from tests.cli.test_probe_cli import CHATBOT, EXAMPLE

    args = ["probe", str(EXAMPLE), "--chatbot", CHATBOT, "--rules", "fact"]
    main([*args, "--review-db", str(store.db)])
    cases = ReviewQueue(store.db).list(queue="probe")
    assert cases and all(c.case.decision.action == "escalate" for c in cases)
    capsys.readouterr()
