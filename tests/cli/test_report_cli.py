"""``guardrail report`` on the command line: outputs, window, exit codes."""

from __future__ import annotations

import json

from guardrail.cli import main
from tests.report.conftest import make_history


def test_report_writes_html_and_json(tmp_path, capsys) -> None:
    """--html and --json write the page and the same figures; the summary names the turns."""
    h = make_history(tmp_path, turns=120)
    code = main(["report", str(h.audit), "--db", str(h.db), "--html", str(tmp_path / "r.html"),
                 "--json", str(tmp_path / "r.json")])  # fmt: skip
    assert code == 0
    assert "120 turns in" in capsys.readouterr().out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["reviews"]["all"]["cases"] == h.truth.escalated
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_report_verify_exits_1_on_a_broken_chain(tmp_path, capsys) -> None:
    """--verify turns a tampered log into exit code 1 and says so."""
    h = make_history(tmp_path, turns=40)
    lines = h.audit.read_bytes().splitlines()
    del lines[3]
    h.audit.write_bytes(b"\n".join(lines) + b"\n")
    code = main(["report", str(h.audit), "--json", str(tmp_path / "r.json"), "--verify"])
    assert code == 1
    assert "chain BROKEN" in capsys.readouterr().out


def test_report_needs_an_output(tmp_path, capsys) -> None:
    """Without --html or --json there is nothing to write: exit 2 with a clear error."""
    h = make_history(tmp_path, turns=5)
    assert main(["report", str(h.audit)]) == 2
    assert "--html" in capsys.readouterr().err


def test_report_window_is_checked(tmp_path, capsys) -> None:
    """--since after --until is refused with exit 2."""
    h = make_history(tmp_path, turns=5)
    code = main(["report", str(h.audit), "--json", "x.json", "--since", "2026-02-01",
                 "--until", "2026-01-01"])  # fmt: skip
    assert code == 2
    assert "--since must be before --until" in capsys.readouterr().err


def test_report_missing_log_fails(tmp_path, capsys) -> None:
    """A log that does not exist is an error (exit 1), not an empty report."""
    assert main(["report", str(tmp_path / "nope.jsonl"), "--json", "x.json"]) == 1
    assert "not found" in capsys.readouterr().err


def test_report_missing_review_db_fails(tmp_path, capsys) -> None:
    """A mistyped --db is an error (exit 2), never an empty review database created on the fly."""
    h = make_history(tmp_path, turns=5)
    code = main(["report", str(h.audit), "--db", str(tmp_path / "typo.db"), "--json", "x.json"])
    assert code == 2
    assert "no review database" in capsys.readouterr().err
    assert not (tmp_path / "typo.db").exists()
