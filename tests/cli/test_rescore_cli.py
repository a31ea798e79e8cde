"""``guardrail rescore`` bad input: one line on stderr, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.cli import main

POLICY = Path(__file__).resolve().parents[1] / "data" / "policy_two_topics.yaml"
GOOD = {"question": "How long is the trial?", "answer": "14 days.", "contexts": ["14 days."]}


def write(path: Path, *lines: object) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def run(tmp_path: Path, log: Path, *extra: str, policy: Path = POLICY) -> int:
    out = tmp_path / "out.jsonl"
    args = ["rescore", str(log), "--policy", str(policy), "--out", str(out), *extra]
    return main(args)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([GOOD, "{not json"], ":2: not valid JSON"),
        ([{"question": "q", "answer": "a"}], ":1: missing field(s) 'contexts'"),
        ([{**GOOD, "contexts": "one passage"}], "'contexts' must be a list of strings"),
        ([{**GOOD, "answer": 3}], "field 'answer' must be a string"),
        ([{**GOOD, "score": "high"}], "field 'score' must be a number"),
        ([{**GOOD, "id": "a"}, {**GOOD, "id": "a"}], ":2: duplicate id 'a' (first on line 1)"),
        (["[1, 2]"], ":1: expected a JSON object, got list"),
        ([""], "the log has no records"),
    ],
)
def test_bad_chat_log(tmp_path, capsys, lines, message):
    log = write(tmp_path / "chat.jsonl", *lines)
    assert run(tmp_path, log) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out.jsonl").exists()


def test_bad_audit_record_names_its_line(tmp_path, capsys):
    log = write(tmp_path / "audit.jsonl", {"kind": "turn", "audit_id": "x", "shoe_size": 44})
    assert run(tmp_path, log) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "audit.jsonl:1: not an audit record" in err


def test_bad_contexts_file(tmp_path, capsys):
    log = write(tmp_path / "audit.jsonl", {"kind": "event", "audit_id": "e", "event_name": "x"})
    contexts = write(tmp_path / "ctx.jsonl", {"id": "a", "contexts": [1]})
    assert run(tmp_path, log, "--contexts", str(contexts)) == 2
    assert "ctx.jsonl:1: field 'contexts' must be a list of strings" in capsys.readouterr().err
    assert run(tmp_path, log) == 2  # an audit log with events only
    assert "the audit log has no turn records" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--contexts", "ctx.jsonl"], "--contexts is for audit logs"),
        (["--jobs", "0"], "--jobs must be >= 1"),
        (["--ray-workers", "2"], "--ray-workers needs --ray"),
        (["--ray", "auto", "--ray-workers", "0"], "--ray-workers must be >= 1"),
    ],
)
def test_bad_options(tmp_path, capsys, extra, message):
    log = write(tmp_path / "chat.jsonl", GOOD)
    assert run(tmp_path, log, *extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_missing_files_and_out_over_the_log(tmp_path, capsys):
    log = write(tmp_path / "chat.jsonl", GOOD)
    assert run(tmp_path, tmp_path / "nope.jsonl") == 2
    assert "cannot read log" in capsys.readouterr().err
    assert run(tmp_path, log, policy=tmp_path / "nope.yaml") == 2
    assert "file not found" in capsys.readouterr().err
    code = main(["rescore", str(log), "--policy", str(POLICY), "--out", str(log)])
    assert code == 2 and "--out must not be the log" in capsys.readouterr().err
    assert json.loads(log.read_text()) == GOOD


def test_required_options(tmp_path, capsys):
    log = write(tmp_path / "chat.jsonl", GOOD)
    with pytest.raises(SystemExit) as info:
        main(["rescore", str(log), "--out", str(tmp_path / "o.jsonl")])
    assert info.value.code == 2
    assert "--policy" in capsys.readouterr().err


def test_chat_log_rescored_locally(tmp_path):
    log = write(tmp_path / "chat.jsonl", GOOD, {**GOOD, "answer": "30 days.", "decision": "pass"})
    assert run(tmp_path, log) == 0
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines[:-1]] == ["line-1", "line-2"]
    assert lines[0]["changed"] is None  # no old decision to compare with
    assert lines[1]["new"]["action"] in ("pass", "highlight")
    assert lines[-1]["turns"] == 2 and lines[-1]["compared"] == 1
    assert lines[-1]["decisions_changed"] == int(lines[1]["changed"])
