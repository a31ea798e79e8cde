"""`guardrail probe` and `guardrail propose-facts` end to end: tables, JSON and HTML reports
(hostile replies escaped), resuming, the review queue, and one-line errors with exit 2."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.probe.facts import load_facts
from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "probe" / "healthcare.yaml"
CHATBOT = f"{ROOT / 'examples' / 'probe' / 'chatbot.py'}:answer"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(autouse=True)
def _needs_clingo() -> None:
    if importlib.util.find_spec("clingo") is None:
        unavailable("clingo", "clingo is not installed (pip install -e '.[probe]')")


def bot(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bots.py"
    path.write_text(body)
    return f"{path}:answer"


def test_example_probe_prints_tables_and_writes_reports(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "150")
    out_json, out_html = tmp_path / "r" / "probe.json", tmp_path / "r" / "probe.html"
    code = main(
        ["probe", str(EXAMPLE), "--chatbot", CHATBOT, "--json-out", str(out_json),
         "--html-out", str(out_html)]
    )  # fmt: skip
    assert code == 1  # the example chatbot hallucinates
    printed = capsys.readouterr().out
    assert "by rule type" in printed and "by relation" in printed and "transitive" in printed
    data = json.loads(out_json.read_text())
    assert data["knowledge"]["triples"] == 29
    assert data["overall"]["questions"] == len(data["questions"]) >= 150
    assert data["by_rule"]["transitive"]["hallucinations"] > 0
    assert sum(b["questions"] for b in data["by_relation"].values()) == data["overall"]["questions"]
    html = out_html.read_text()
    assert (
        "<mark>Ibuprofen is not contraindicated in the third trimester of pregnancy.</mark>" in html
    )
    assert (
        "declared (class_contraindication): (ibuprofen, contraindicated_in, the third trimester "
        "of pregnancy)" in html
    )
    assert data["by_rule"]["closed_world"]["hallucinations"] > 0  # the invented fact is caught
    invented = ["city residents", "eligible_for", "free prescriptions"]
    assert any(
        q["triple"] == invented and q["rule"] == "closed_world" and q["outcome"] in
        ("wrong_knowledge", "wrong_inference", "both") for q in data["questions"]
    )  # fmt: skip


def test_html_escapes_hostile_replies(tmp_path):
    spec = bot(
        tmp_path,
        f"def answer(question):\n    return 'No. ' + {HOSTILE!r} + '\\n1. {HOSTILE}'\n",
    )
    out_html = tmp_path / "probe.html"
    code = main(
        ["probe", str(EXAMPLE), "--chatbot", spec, "--limit", "3", "--html-out", str(out_html)]
    )
    assert code == 1
    html = out_html.read_text()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_an_honest_chatbot_exits_0(tmp_path, capsys):
    spec = bot(tmp_path, 'def answer(question):\n    return "I don\'t know.", []\n')
    assert main(["probe", str(EXAMPLE), "--chatbot", spec, "--rules", "transitive"]) == 0
    assert "hallucinations: 0 of 10 questions; refused 10" in capsys.readouterr().out


def test_resume_asks_only_the_rest(tmp_path, capsys):
    counter = tmp_path / "calls.txt"
    spec = bot(
        tmp_path,
        "from pathlib import Path\n"
        f"COUNTER = Path({str(counter)!r})\n"
        "def answer(question):\n"
        "    with COUNTER.open('a') as f:\n        f.write('.')\n"
        "    return 'Yes.'\n",
    )
    progress = tmp_path / "progress.jsonl"
    args = ["probe", str(EXAMPLE), "--chatbot", spec, "--progress", str(progress)]
    main([*args, "--limit", "10"])
    assert len(counter.read_text()) == 10
    out_json = tmp_path / "all.json"
    main([*args, "--limit", "25", "--json-out", str(out_json)])
    assert len(counter.read_text()) == 25  # the first 10 came from the progress file
    assert "resumed 10 questions" in capsys.readouterr().out
    data = json.loads(out_json.read_text())
    assert data["run"] == {**data["run"], "resumed": 10, "asked_this_run": 15}
    assert len(data["questions"]) == 25


def test_hallucinations_go_to_the_review_queue(tmp_path, capsys):
    from guardrail.queues import SQLiteQueue

    db = tmp_path / "review.sqlite3"
    args = [
        "probe",
        str(EXAMPLE),
        "--chatbot",
        CHATBOT,
        "--rules",
        "fact,declared",
        "--review-db",
        str(db),
    ]
    main(args)
    cases = SQLiteQueue(db).list(queue="probe")
    assert cases and all(c.case.decision.action == "escalate" for c in cases)
    assert any("ibuprofen is contraindicated" in c.case.question for c in cases)
    main(args)  # the same failures again: no duplicate cases
    assert len(SQLiteQueue(db).list(queue="probe")) == len(cases)


def test_propose_facts_writes_a_reviewable_fact_file(tmp_path, capsys):
    out = tmp_path / "facts.yaml"
    assert main(["propose-facts", str(ROOT / "examples" / "demo_docs"), "--out", str(out)]) == 0
    base = load_facts(out)
    assert len(base.facts) >= 10
    assert "REVIEW BEFORE USE" in out.read_text()


@pytest.mark.parametrize(
    ("facts", "chatbot", "message"),
    [
        ("relations:\n  r: {type: active, phrase: r, negation: not r}\nfacts:\n  - [a, r]\n",
         None, r"facts\.0: .*\(line 4\)"),
        ("relations: {}\nfacts: []\n", None, r"relations: .*\(line 1\)"),
        ("relations: [\n", None, r"not valid YAML: .*\(line 2\)"),
        (None, "no_colon", "expected module:function"),
        (None, "no_such_module_xyz:answer", "cannot import 'no_such_module_xyz'"),
        (None, "json:no_such_function", "'json' has no attribute 'no_such_function'"),
        (None, "json:__doc__", "not callable"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, facts, chatbot, message):
    path = EXAMPLE
    if facts is not None:
        path = tmp_path / "facts.yaml"
        path.write_text(facts)
    assert main(["probe", str(path), "--chatbot", chatbot or CHATBOT]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert pytest.importorskip("re").search(message, err), err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--rules", "cyclic"], "unknown rule"),
        (["--jobs", "0"], "--jobs"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_flags_exit_2(capsys, flags, message):
    assert main(["probe", str(EXAMPLE), "--chatbot", CHATBOT, *flags]) == 2
    assert message in capsys.readouterr().err


def test_a_bad_reply_shape_exits_2(tmp_path, capsys):
    spec = bot(tmp_path, "def answer(question):\n    return 42\n")
    assert main(["probe", str(EXAMPLE), "--chatbot", spec, "--limit", "2"]) == 2
    assert "the answer function returned a int" in capsys.readouterr().err


def test_the_readme_command_runs_from_the_repository_root():
    """`guardrail probe examples/probe/healthcare.yaml --chatbot examples.probe.chatbot:answer`"""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", "probe", "examples/probe/healthcare.yaml",
         "--chatbot", "examples.probe.chatbot:answer"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # the example bot hallucinates
    assert "hallucinations: 67 of 301 questions; refused 19, unparsed 0, errors 0" in proc.stdout
