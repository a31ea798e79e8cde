"""``guardrail audit verify``: exit 0 intact, 1 broken (naming line and audit id), 2 missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from guardrail.cli import main

WriteLog = Callable[..., Path]
ROOT = Path(__file__).resolve().parents[2]


def test_intact_log_exits_0(write_log: WriteLog, capsys: pytest.CaptureFixture[str]):
    """An intact log prints 'OK: N records, chain intact' and exits 0."""
    path = write_log(4)
    assert main(["audit", "verify", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "OK: 4 records, chain intact"
    assert out[1] == f"head: {json.loads(path.read_bytes().splitlines()[-1])['hash']}"


def test_altered_log_exits_1_naming_line_and_audit_id(
    write_log: WriteLog, capsys: pytest.CaptureFixture[str]
):
    """A tampered line makes the command exit 1 and print its line number, id and reason."""
    path = write_log(4)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"action":"abstain"', b'"action":"pass"', 1)
    path.write_bytes(b"".join(lines))
    assert main(["audit", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: line 3 (audit_id turn-0002): hash mismatch" in out
    assert "2 records intact before it" in out


def test_removed_line_exits_1(write_log: WriteLog, capsys: pytest.CaptureFixture[str]):
    """A deleted record is reported as a seq gap."""
    path = write_log(4)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:1] + lines[2:]))
    assert main(["audit", "verify", str(path)]) == 1
    assert "FAIL: line 2 (audit_id turn-0002): seq gap" in capsys.readouterr().out


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A path that does not exist is a usage error: exit 2 with a one-line message."""
    assert main(["audit", "verify", str(tmp_path / "nope.jsonl")]) == 2
    assert "audit log not found" in capsys.readouterr().err


def test_json_output(write_log: WriteLog, capsys: pytest.CaptureFixture[str]):
    """--json prints the VerifyReport as one JSON object."""
    path = write_log(2)
    path.write_bytes(path.read_bytes()[:-10])
    assert main(["audit", "verify", "--json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["first_bad_line"] == 2 and report["records"] == 1


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "guardrail", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_subprocess_exit_codes(write_log: WriteLog, tmp_path: Path):
    """`python -m guardrail audit verify` exits 0, 1 and 2 as documented."""
    path = write_log(3)
    ok = _run("audit", "verify", str(path))
    assert (ok.returncode, ok.stdout.splitlines()[0]) == (0, "OK: 3 records, chain intact")
    path.write_bytes(path.read_bytes()[:-5])
    broken = _run("audit", "verify", str(path))
    assert broken.returncode == 1 and broken.stdout.startswith("FAIL: line 3")
    missing = _run("audit", "verify", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_anchor_option(write_log: WriteLog, capsys: pytest.CaptureFixture[str]):
    """--anchor fails (exit 1) once the anchored record has been cut off the end."""
    path = write_log(3)
    assert main(["audit", "verify", str(path)]) == 0
    head = capsys.readouterr().out.splitlines()[1].removeprefix("head: ")
    assert main(["audit", "verify", "--anchor", head, str(path)]) == 0
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:2]))
    capsys.readouterr()
    assert main(["audit", "verify", "--anchor", head, str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL: anchor {head} not found")
    assert "2 records checked, chain intact" in out
