"""``guardrail review``: list, show, claim, resolve, outbox — and one-line errors with exit 2."""

from __future__ import annotations

import json

import httpx
import pytest

from guardrail.cli import main
from guardrail.queues import SQLiteOutbox, SQLiteQueue, WebhookDeliveryError, WebhookSink


@pytest.fixture
def db(tmp_path, make_case):
    path = tmp_path / "review.sqlite3"
    q = SQLiteQueue(path)
    q.add(make_case("m-1", queue="medical"))
    q.add(make_case("l-1", queue="legal"))
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_open_cases_in_a_table(capsys, db):
    """The human listing names every open case with its queue."""
    code, out, _ = run(capsys, "review", "list", "--db", str(db))
    assert code == 0
    assert "m-1" in out and "l-1" in out and "medical" in out and "2 case(s)" in out


def test_list_json_filters_by_queue_and_state(capsys, db):
    """--json with --queue gives machine-readable stored cases of that queue only."""
    code, out, _ = run(capsys, "review", "list", "--db", str(db), "--queue", "legal", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["case"]["case_id"] for r in rows] == ["l-1"] and rows[0]["state"] == "open"
    code, out, _ = run(capsys, "review", "list", "--db", str(db), "--state", "claimed", "--json")
    assert json.loads(out) == []


def test_claim_then_approve(capsys, db):
    """claim then resolve --approve stores the original answer as final."""
    assert run(capsys, "review", "claim", "m-1", "--db", str(db), "--reviewer", "alice")[0] == 0
    code, out, _ = run(capsys, "review", "resolve", "m-1", "--db", str(db), "--approve")
    assert code == 0 and "approved by alice" in out
    stored = SQLiteQueue(db).get("m-1")
    assert stored.outcome == "approved" and stored.final_answer == "Take 2 g."


def test_resolutions_are_appended_to_the_audit_log(capsys, db, tmp_path):
    """Every resolution becomes a hash-chained 'resolution' record in the audit log."""
    from guardrail.audit import verify_log

    log = tmp_path / "audit.jsonl"
    run(capsys, "review", "claim", "m-1", "--db", str(db), "--reviewer", "alice")
    code, _, _ = run(
        capsys, "review", "resolve", "m-1", "--db", str(db), "--reject",
        "--note", "unsafe dose", "--audit-log", str(log),
    )  # fmt: skip
    assert code == 0
    [record] = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["kind"] == "resolution"
    assert (
        record["resolution"]["case_id"] == "m-1" and record["resolution"]["outcome"] == "rejected"
    )
    assert record["resolution"]["reviewer"] == "alice"
    assert verify_log(log).ok


def test_resolve_with_edit_file_and_note(capsys, db, tmp_path):
    """--edit FILE uses the file's text as the final answer; --note is kept."""
    edit = tmp_path / "answer.txt"
    edit.write_text("Adults: at most 4 g per day.\n")
    run(capsys, "review", "claim", "l-1", "--db", str(db), "--reviewer", "bob")
    code, _, _ = run(
        capsys, "review", "resolve", "l-1", "--db", str(db), "--edit", str(edit),
        "--reviewer", "bob", "--note", "dose corrected",
    )  # fmt: skip
    assert code == 0
    stored = SQLiteQueue(db).get("l-1")
    assert stored.final_answer == "Adults: at most 4 g per day." and stored.note == "dose corrected"
    code, out, _ = run(capsys, "review", "show", "l-1", "--db", str(db))
    assert "resolved" in out and "dose corrected" in out and "at most 4 g" in out


def test_unchanged_edit_is_refused(capsys, db, tmp_path):
    """--edit with the original answer (up to surrounding white space) asks to approve instead."""
    edit = tmp_path / "answer.txt"
    edit.write_text("  Take 2 g.\n")
    run(capsys, "review", "claim", "m-1", "--db", str(db), "--reviewer", "alice")
    code, _, err = run(capsys, "review", "resolve", "m-1", "--db", str(db), "--edit", str(edit))
    assert code == 2 and "unchanged: approve it instead" in err
    assert SQLiteQueue(db).get("m-1").state == "claimed"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["review", "resolve", "m-1", "--approve"], "is open: claim it first"),
        (["review", "claim", "zzz", "--reviewer", "a"], "no case 'zzz'"),
        (["review", "show", "zzz"], "no case 'zzz'"),
        (["review", "resolve", "m-1", "--edit", "/nonexistent/file"], "cannot read edited answer"),
    ],
)
def test_errors_are_one_line_exit_2(capsys, db, argv, message):
    """Review mistakes print one line on stderr and exit 2, no traceback."""
    code, _, err = run(capsys, *argv, "--db", str(db))
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_database_is_a_clear_error(capsys, tmp_path):
    """Pointing at a file that does not exist says so rather than creating an empty queue."""
    code, _, err = run(capsys, "review", "list", "--db", str(tmp_path / "nope.sqlite3"))
    assert code == 2 and "no review database at" in err
    assert not (tmp_path / "nope.sqlite3").exists()


def test_resolve_needs_exactly_one_outcome(capsys, db):
    """--approve and --reject together is a usage error (exit 2)."""
    with pytest.raises(SystemExit) as info:
        main(["review", "resolve", "m-1", "--db", str(db), "--approve", "--reject"])
    assert info.value.code == 2


async def test_outbox_lists_undelivered_webhook_cases(capsys, tmp_path, make_case):
    """A case the webhook could not deliver shows in `review outbox`."""
    path = tmp_path / "review.sqlite3"
    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    sink = WebhookSink(
        "https://hooks.example.test/x", "k", outbox=SQLiteOutbox(path), client=client,
        max_attempts=1,
    )  # fmt: skip
    with pytest.raises(WebhookDeliveryError):
        await sink.send(make_case("stuck"))
    code, out, _ = run(capsys, "review", "outbox", "--db", str(path), "--json")
    assert code == 0
    (entry,) = json.loads(out)
    assert entry["case"]["case_id"] == "stuck" and entry["last_error"] == "HTTP 500"
    code, out, _ = run(capsys, "review", "outbox", "--db", str(path))
    assert "stuck" in out and "1 undelivered" in out


LONG = "755eb281837b4578ba70957a2ea4c0d1"  # a real id is 32 hex digits


@pytest.fixture
def uuid_db(tmp_path, make_case):
    path = tmp_path / "review.sqlite3"
    q = SQLiteQueue(path)
    q.add(make_case(LONG, queue="clinical-review"))
    q.add(make_case("755f0000000000000000000000000000", queue="asylum"))
    return path


def test_any_unique_id_prefix_names_a_case(capsys, uuid_db):
    """Like git: `755eb` is enough for show, claim and resolve."""
    code, out, _ = run(capsys, "review", "show", "755eb", "--db", str(uuid_db))
    assert code == 0 and f"case {LONG}" in out
    code, out, _ = run(capsys, "review", "claim", "755e", "--db", str(uuid_db), "--reviewer", "al")
    assert code == 0 and f"claimed {LONG} for al" in out
    code, out, _ = run(capsys, "review", "resolve", "755eb2", "--db", str(uuid_db), "--approve")
    assert code == 0 and SQLiteQueue(uuid_db).get(LONG).outcome == "approved"


def test_an_ambiguous_prefix_names_the_candidates(capsys, uuid_db):
    code, _, err = run(capsys, "review", "show", "755", "--db", str(uuid_db))
    assert code == 2 and "matches 2 cases" in err and LONG in err and err.count("\n") == 1


def test_a_narrow_terminal_never_cuts_ids_or_scores(capsys, uuid_db, monkeypatch):
    """At 60 columns the id and the score are whole and every line fits; labels such as the
    queue's name wrap instead (tests/cli/test_narrow_terminal.py checks 80 columns)."""
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run(capsys, "review", "list", "--db", str(uuid_db))
    assert code == 0 and "…" not in out
    assert LONG in out and "0.80" in out and "clinical-" in out
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 60


def test_show_prints_the_score_once(capsys, uuid_db):
    """The decision line and the reason used to repeat 'score 0.80 >= 0.50'."""
    code, out, _ = run(capsys, "review", "show", LONG, "--db", str(uuid_db))
    assert code == 0 and out.count("0.80") == 1
