"""Progress and resume files are validated like any input: a line that is not an object, a
non-finite number or a score outside [0, 1] ends the run with one line and exit 2, before any
row is scored, never a traceback and never a score written out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.evaluation.runner import PROGRESS_VERSION

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "policies" / "default.yaml"
ROW = {"id": "r1", "task": "qa", "question": "q", "context": "c", "answer": "a", "label": 0}
TURN = {"question": "q?", "answer": "An answer.", "contexts": ["A passage."]}
EVAL_HEADER = {"kind": "header", "version": PROGRESS_VERSION, "method": "metarag"}


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[:2000]
    return err


def _eval(tmp_path: Path, lines: list[str]) -> list[str]:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    progress = tmp_path / "progress.jsonl"
    progress.write_text("".join(line + "\n" for line in lines))
    return ["eval", str(data), "--resume-file", str(progress), "--json-out", str(tmp_path / "o")]


def _header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The header a fresh ``eval`` run writes (method and judge as this version names them)."""
    data = tmp_path / "h.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    progress = tmp_path / "h.progress"
    assert main(["eval", str(data), "--resume-file", str(progress)]) == 0
    capsys.readouterr()
    return progress.read_text().splitlines()[0]


@pytest.mark.parametrize("first", ['["a"]', "7", '"header"', "null"])
def test_a_first_line_that_is_not_an_object(first, tmp_path, capsys):
    """A first line that is JSON but not an object is 'not a guardrail progress file'."""
    err = one_line_exit_2(_eval(tmp_path, [first]), capsys)
    assert "progress.jsonl:1" in err and "not a guardrail progress file" in err


def test_a_later_line_that_is_not_an_object(tmp_path, capsys):
    """A row line that is a JSON list names its line number."""
    header = _header(tmp_path, capsys)
    err = one_line_exit_2(_eval(tmp_path, [header, '["a"]']), capsys)
    assert "progress.jsonl:2" in err and "not a progress row" in err


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_number(number, tmp_path, capsys):
    """NaN or an infinity anywhere in a line is refused, naming the line."""
    header = _header(tmp_path, capsys)
    row = f'{{"kind": "row", "id": "r1", "ok": true, "score": {number}}}'
    err = one_line_exit_2(_eval(tmp_path, [header, row]), capsys)
    assert "progress.jsonl:2" in err and number.lstrip("-") in err


@pytest.mark.parametrize("field", ["score", "factoid"])
def test_a_score_outside_zero_to_one(field, tmp_path, capsys):
    """A score of 5.0 (the row's or a factoid's) is refused, not written out as a score."""
    header = _header(tmp_path, capsys)
    row = {"kind": "row", "id": "r1", "ok": True, "score": 0.5}
    if field == "score":
        row["score"] = 5.0
    else:
        row["factoids"] = [{"score": 5.0}]
    err = one_line_exit_2(_eval(tmp_path, [header, json.dumps(row)]), capsys)
    assert "progress.jsonl:2" in err and "less than or equal to 1" in err
    assert not (tmp_path / "o").exists()


def test_a_rescore_progress_file_with_a_score_of_five(tmp_path, capsys):
    """``rescore``'s progress file is held to the same bounds."""
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(TURN) + "\n")
    out = tmp_path / "out.jsonl"
    progress = tmp_path / "p.progress"
    argv = ["rescore", str(log), "--policy", str(POLICY), "--out", str(out)]
    assert main([*argv, "--progress", str(progress)]) == 0
    capsys.readouterr()
    header = progress.read_text().splitlines()[0] if progress.exists() else None
    assert header is not None
    bad = {"kind": "turn", "id": "t0", "ok": True, "score": 5.0, "threshold": 0.5}
    progress.write_text(header + "\n" + json.dumps(bad) + "\n")
    err = one_line_exit_2([*argv, "--progress", str(progress)], capsys)
    assert "p.progress:2" in err and "less than or equal to 1" in err
