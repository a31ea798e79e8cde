"""Bad datasets and progress files: exit 2 with one line naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.cli import main

ROW = {"id": "r1", "task": "qa", "question": "q", "context": "c", "answer": "a", "label": 0}


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_dataset_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    data = tmp_path / "rows.jsonl"
    data.write_bytes(json.dumps(ROW).encode() + b"\n" + b'{"id": "r2", "answer": "caf\xe9"}\n')
    err = one_line_exit_2(["eval", str(data)], capsys)
    assert f"{data}:2" in err and "not UTF-8" in err


def test_an_empty_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    data = tmp_path / "empty.jsonl"
    data.write_text("\n\n")
    assert "the dataset has no rows" in one_line_exit_2(["eval", str(data)], capsys)


def test_a_resume_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    progress = tmp_path / "progress.jsonl"
    progress.write_bytes(b"\xff\xfe garbage\n")
    err = one_line_exit_2(["eval", str(data), "--resume-file", str(progress)], capsys)
    assert f"{progress}:1" in err and "not UTF-8" in err


def test_a_threshold_that_is_not_a_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    err = one_line_exit_2(["eval", str(data), "--threshold", "nan"], capsys)
    assert "--threshold: Input should be a finite number" in err
