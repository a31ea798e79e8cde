"""The command line under hostile files: one line and exit 2, before any work; private files;
bounded settings; strict JSON out."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.exceptions import PolicyError
from guardrail.policy import parse_policy

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "policies" / "default.yaml"
FACTS = ROOT / "examples" / "probe" / "healthcare.yaml"
CHATBOT = f"{ROOT / 'examples' / 'probe' / 'chatbot.py'}:answer"
ROW = {"id": "r1", "task": "qa", "question": "q", "context": "c", "answer": "a", "label": 0}
TURN = {"question": "q?", "answer": "An answer.", "contexts": ["A passage."]}
DEEP = "[" * 100_000 + "]" * 100_000


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[:2000]
    return err


# -- deep nesting -------------------------------------------------------------------------


def test_a_deeply_nested_dataset_line(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(DEEP + "\n")
    assert f"{data}:1" in one_line_exit_2(["eval", str(data)], capsys)


def test_a_deeply_nested_chat_log(tmp_path, capsys):
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(TURN) + "\n" + DEEP + "\n")
    out = tmp_path / "out.jsonl"
    err = one_line_exit_2(["rescore", str(log), "--policy", str(POLICY), "--out", str(out)], capsys)
    assert f"{log}:2" in err and not out.exists()


def test_a_deeply_nested_resume_file(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    progress = tmp_path / "progress.jsonl"
    progress.write_text(DEEP + "\n" + DEEP + "\n")
    err = one_line_exit_2(["eval", str(data), "--resume-file", str(progress)], capsys)
    assert str(progress) in err


@pytest.mark.parametrize("suffix", [".yaml", ".jsonl"])
def test_deeply_nested_probe_facts(tmp_path, capsys, suffix):
    facts = tmp_path / f"facts{suffix}"
    facts.write_text(DEEP + "\n")
    assert str(facts) in one_line_exit_2(["probe", str(facts), "--chatbot", CHATBOT], capsys)


def test_policy_validate_on_a_bracket_file(tmp_path, capsys):
    policy = tmp_path / "p.yaml"
    policy.write_text(DEEP)
    assert "nested deeper" in one_line_exit_2(["policy", "validate", str(policy)], capsys)


def test_an_alias_bomb_in_a_fact_file_is_refused_at_once(tmp_path, capsys):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    facts = tmp_path / "bomb.yaml"
    facts.write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    err = one_line_exit_2(["probe", str(facts), "--chatbot", CHATBOT], capsys)
    assert time.monotonic() - started < 5 and "aliases included" in err and len(err) < 500


# -- output paths -------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--json-out", "--html-out"])
def test_probe_refuses_a_directory_output_before_running(tmp_path, capsys, flag):
    progress = tmp_path / "p.progress"
    argv = ["probe", str(FACTS), "--chatbot", CHATBOT, flag, str(tmp_path), "--limit", "2"]
    err = one_line_exit_2([*argv, "--progress", str(progress)], capsys)
    assert "is a directory" in err and flag in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_eval_refuses_a_directory_json_out(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    err = one_line_exit_2(["eval", str(data), "--json-out", str(tmp_path)], capsys)
    assert "--json-out" in err and "is a directory" in err


def test_rescore_refuses_an_output_under_a_file_and_leaves_nothing(tmp_path, capsys):
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(TURN) + "\n")
    out = log / "out.jsonl"  # a path whose parent is a file
    err = one_line_exit_2(["rescore", str(log), "--policy", str(POLICY), "--out", str(out)], capsys)
    assert "--out" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.jsonl"]


# -- strict JSON in and out ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "raw"),
    [("score", "NaN"), ("score", "1e999"), ("score", "-5"), ("decision", '"<script>"')],
)
def test_rescore_refuses_non_json_scores_and_unknown_decisions(tmp_path, capsys, field, raw):
    line = json.dumps(TURN)[:-1] + f', "{field}": {raw}}}'
    log = tmp_path / "chat.jsonl"
    log.write_text(line + "\n")
    out = tmp_path / "out.jsonl"
    err = one_line_exit_2(["rescore", str(log), "--policy", str(POLICY), "--out", str(out)], capsys)
    assert f"field '{field}'" in err and not out.exists()


def test_rescore_output_is_strict_json(tmp_path, capsys):
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps({**TURN, "score": 0.25, "decision": "pass"}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["rescore", str(log), "--policy", str(POLICY), "--out", str(out)]) == 0

    def refuse(token: str) -> None:
        raise ValueError(token)

    for line in out.read_text().splitlines():
        json.loads(line, parse_constant=refuse)


# -- private files -------------------------------------------------------------------------


def test_review_database_and_fallback_log_are_owner_only(tmp_path):
    from guardrail.queues import JSONLSink, SQLiteQueue
    from guardrail.server.samples import sample_case

    old = os.umask(0o022)
    try:
        SQLiteQueue(tmp_path / "review.sqlite3").add(sample_case("c1", queue="medical"))
        JSONLSink(tmp_path / "fallback.jsonl").add(sample_case("c2", queue="medical"))
    finally:
        os.umask(old)
    for name in ("review.sqlite3", "review.sqlite3-wal", "fallback.jsonl"):
        path = tmp_path / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    assert (tmp_path / "review.sqlite3").exists() and (tmp_path / "fallback.jsonl").exists()


def test_probe_reports_and_rescore_output_are_owner_only(tmp_path):
    """Probe reports hold the chatbot's replies and rescore lines hold chat turns: 0600 even
    under a permissive umask, and an existing 0644 report is replaced by a private one."""
    html, report, rescored = tmp_path / "r.html", tmp_path / "r.json", tmp_path / "out.jsonl"
    html.write_text("old")
    html.chmod(0o644)
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps({**TURN, "score": 0.25, "decision": "pass"}) + "\n")
    old = os.umask(0o022)
    try:
        probe = ["probe", str(FACTS), "--chatbot", CHATBOT, "--limit", "3"]
        assert main([*probe, "--json-out", str(report), "--html-out", str(html)]) in (0, 1)
        assert main(["rescore", str(log), "--policy", str(POLICY), "--out", str(rescored)]) == 0
    finally:
        os.umask(old)
    for path in (html, report, rescored):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert json.loads(report.read_text())  # written whole
    assert "old" not in html.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "chat.jsonl",
        "out.jsonl",
        "r.html",
        "r.json",
    ]


# -- bounded settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting",
    ["max_attempts: 99999999999999999999", "timeout_s: 1e300", "max_concurrency: 10000000"],
)
def test_unbounded_scorer_settings_are_refused(setting):
    text = POLICY.read_text().replace("  max_attempts: 4\n", f"  {setting}\n", 1)
    if not setting.startswith("max_attempts"):
        text = text.replace("  timeout_s: 60\n", "", 1).replace("  max_concurrency: 64\n", "", 1)
    with pytest.raises(PolicyError) as info:
        parse_policy(text, "p.yaml")
    assert setting.split(":")[0] in str(info.value)


def test_probe_max_depth_is_bounded(capsys):
    argv = ["probe", str(FACTS), "--chatbot", CHATBOT, "--max-depth", "1000000"]
    assert "--max-depth" in one_line_exit_2(argv, capsys)


# -- undecodable arguments -----------------------------------------------------------------


def test_check_with_undecodable_argument_bytes_exits_2(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}
    args = [sys.executable, "-m", "guardrail", "check", "-a", b"caf\xe9 ok", "-c", "context"]
    proc = subprocess.run(args, env=env, capture_output=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert b"undecodable byte" in proc.stderr and b"Traceback" not in proc.stderr
