"""Output files are written only to regular files: devices, FIFOs and kernel file systems are
refused before any work, a full disk is found before the run where it can be, a write that
fails at the end is one line and exit 2, and every output is written through a temporary
file in its own directory (nothing half-written, nothing left behind)."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

import guardrail._fs as fs
from guardrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "policies" / "default.yaml"
FACTS = ROOT / "examples" / "probe" / "healthcare.yaml"
CHATBOT = f"{ROOT / 'examples' / 'probe' / 'chatbot.py'}:answer"
ROW = {"id": "r1", "task": "qa", "question": "q", "context": "c", "answer": "a", "label": 0}
TURN = {"question": "q?", "answer": "An answer.", "contexts": ["A passage."]}


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[:2000]
    return err


def _rows(tmp_path: Path) -> str:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    return str(data)


def _probe(out_flag: str, out: Path) -> list[str]:
    return ["probe", str(FACTS), "--chatbot", CHATBOT, "--limit", "2", out_flag, str(out)]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_is_refused_and_left_a_device(tmp_path, capsys):
    """probe --html-out at a character device (like /dev/full) is refused; the node stays."""
    device = tmp_path / "full"
    os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 7))
    err = one_line_exit_2(_probe("--html-out", device), capsys)
    assert "not a regular file" in err
    assert stat.S_ISCHR(device.stat().st_mode)


def test_a_fifo_is_refused_and_left_a_fifo(tmp_path, capsys):
    """probe --json-out at a FIFO is refused before the run; the FIFO stays."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    err = one_line_exit_2(_probe("--json-out", fifo), capsys)
    assert "not a regular file" in err and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_symlink_to_a_fifo_is_refused(tmp_path, capsys):
    """A symbolic link to a FIFO is judged by what it points at."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.json"
    link.symlink_to(fifo)
    err = one_line_exit_2(["eval", _rows(tmp_path), "--json-out", str(link)], capsys)
    assert "not a regular file" in err and stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("where", ["/proc/guardrail-test-output", "/sys/guardrail-test-output"])
def test_a_kernel_file_system_is_refused_before_the_run(where, tmp_path, capsys):
    """eval --json-out under /proc or /sys fails at once, not after the whole run."""
    err = one_line_exit_2(["eval", _rows(tmp_path), "--json-out", where], capsys)
    assert "kernel file system" in err


def test_rescore_out_at_a_fifo(tmp_path, capsys):
    """rescore --out at a FIFO is refused; the FIFO stays."""
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(TURN) + "\n")
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    err = one_line_exit_2(
        ["rescore", str(log), "--policy", str(POLICY), "--out", str(fifo)], capsys
    )
    assert "not a regular file" in err and stat.S_ISFIFO(fifo.stat().st_mode)


def test_policy_schema_out_at_a_fifo(tmp_path, capsys):
    """policy schema --out at a FIFO is refused (without blocking on it)."""
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    err = one_line_exit_2(["schema", "--out", str(fifo)], capsys)
    assert "not a regular file" in err


def test_a_full_disk_is_found_before_the_run(tmp_path, capsys, monkeypatch):
    """No free space on the output's file system: refused before any row is scored."""
    real = os.statvfs

    def full(path: object) -> object:
        got = real(path)  # type: ignore[arg-type]
        return SimpleNamespace(f_bavail=0, f_frsize=got.f_frsize, f_blocks=got.f_blocks)

    monkeypatch.setattr(fs.os, "statvfs", full)
    err = one_line_exit_2(["eval", _rows(tmp_path), "--json-out", str(tmp_path / "o.json")], capsys)
    assert "free" in err and not (tmp_path / "o.json").exists()


def test_a_write_that_fails_at_the_end_is_one_line_and_leaves_nothing(
    tmp_path, capsys, monkeypatch
):
    """ENOSPC while writing the output: exit 2, one line, the old file intact, no temp file."""
    out = tmp_path / "o.json"
    out.write_text("previous\n")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fs.os, "fsync", no_space)
    err = one_line_exit_2(["eval", _rows(tmp_path), "--json-out", str(out)], capsys)
    assert "No space left on device" in err
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json", "rows.jsonl"]


def test_outputs_replace_a_regular_file_through_a_temporary_file(tmp_path, capsys):
    """A regular file at the path is replaced whole, and no temporary file is left."""
    out = tmp_path / "o.json"
    out.write_text("previous\n")
    assert main(["eval", _rows(tmp_path), "--json-out", str(out)]) == 0
    assert json.loads(out.read_text())["n_rows"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json", "rows.jsonl"]


def test_a_resume_file_that_is_a_fifo_is_refused(tmp_path, capsys):
    """eval --resume-file at a FIFO is refused before the run (reading it would block)."""
    fifo = tmp_path / "progress.jsonl"
    os.mkfifo(fifo)
    err = one_line_exit_2(["eval", _rows(tmp_path), "--resume-file", str(fifo)], capsys)
    assert "not a regular file" in err and stat.S_ISFIFO(fifo.stat().st_mode)
