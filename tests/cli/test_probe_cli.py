"""`guardrail probe` and `guardrail propose-facts` end to end: tables, JSON and HTML reports
(hostile replies escaped), resuming, the review queue, and one-line errors with exit 2."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


@contextlib.contextmanager
def chat_server(answer, status: int = 200) -> Iterator[tuple[str, list[dict]]]:
    """A real OpenAI-compatible chat server on 127.0.0.1: ``answer(prompt)`` gives each reply;
    yields the base URL and every request body."""
    from tests.judges.fakes import openai_body

    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            seen.append(body)
            if status == 200:
                payload = openai_body(answer(body["messages"][-1]["content"]))
            else:
                payload = {"error": {"message": "invalid api key", "type": "auth"}}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_model_spec_is_probed_over_http_with_the_system_prompt(tmp_path, capsys):
    """--chatbot openai-compatible:MODEL@URL: the official SDK against a real local server whose
    model holds the true beliefs plus one invented fact about the complete relation."""
    from guardrail.probe.facts import Triple
    from guardrail.probe.run import plan
    from guardrail.probe.scripted import BeliefChatbot

    truth = load_facts(EXAMPLE)
    invented = ("new mothers", "eligible_for", "free prescriptions")
    beliefs = truth.model_copy(update={"facts": [*truth.facts, Triple.model_validate(invented)]})
    bot = BeliefChatbot(beliefs, plan(truth))
    out_json = tmp_path / "model.json"
    with chat_server(bot) as (url, seen):
        code = main(
            ["probe", str(EXAMPLE), "--chatbot", f"openai-compatible:bot-1@{url}",
             "--system-prompt", "You are the benefits helpdesk of country X.",
             "--rules", "closed_world", "--json-out", str(out_json), "--jobs", "4"]
        )  # fmt: skip
    assert code == 1
    data = json.loads(out_json.read_text())
    assert data["chatbot"] == f"openai-compatible:bot-1@{url}"
    assert len(seen) == data["overall"]["questions"] == 66
    assert seen[0]["model"] == "bot-1" and seen[0]["max_tokens"] == 256
    assert seen[0]["messages"][0] == {
        "role": "system", "content": "You are the benefits helpdesk of country X."
    }  # fmt: skip
    wrong = {tuple(q["triple"]) for q in data["questions"] if q["outcome"] not in ("correct",)}
    assert wrong == {invented}
    assert data["settings"]["system_prompt"] == "You are the benefits helpdesk of country X."


def test_a_model_that_refuses_the_key_stops_the_run_with_exit_2(capsys):
    with chat_server(lambda prompt: "", status=401) as (url, seen):
        code = main(["probe", str(EXAMPLE), "--chatbot", f"openai-compatible:m@{url}"])
    assert code == 2 and len(seen) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--chatbot openai-compatible:m" in err


def test_baseline_comparison_and_the_ci_gate(tmp_path, capsys):
    truthful = bot(
        tmp_path,
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from guardrail.probe.facts import load_facts\n"
        "from guardrail.probe.run import plan\nfrom guardrail.probe.scripted import BeliefChatbot\n"
        f"TRUTH = load_facts({str(EXAMPLE)!r})\n"
        "answer = BeliefChatbot(TRUTH, plan(TRUTH))\n",
    )
    before = tmp_path / "before.json"
    args = ["probe", str(EXAMPLE), "--rules", "closed_world,fact"]
    assert main([*args, "--chatbot", truthful, "--json-out", str(before), "--fail-over", "0"]) == 0
    assert "gate passed" in capsys.readouterr().out
    # the example chatbot answers "no" to whatever it has no statement for
    after = tmp_path / "after.json"
    code = main(
        [*args, "--chatbot", CHATBOT, "--baseline", str(before), "--fail-on-regression",
         "--json-out", str(after), "--html-out", str(tmp_path / "after.html")]
    )  # fmt: skip
    assert code == 1
    html = (tmp_path / "after.html").read_text()
    assert "<h2>Gate failed</h2>" in html and "Compared with" in html
    assert "Is it true that city residents are eligible for free prescriptions?" in html
    printed = capsys.readouterr().out
    assert "compared with" in printed and "regression" in printed
    assert "gate failed: regression in overall all" in printed
    data = json.loads(after.read_text())
    assert data["gate"]["passed"] is False and data["comparison"]["turned_wrong"]
    turned = {tuple(q["triple"]) for q in data["comparison"]["turned_wrong"]}
    assert ("city residents", "eligible_for", "free prescriptions") in turned
    # the same chatbot against itself: no regression, the gate passes on that count
    code = main([*args, "--chatbot", CHATBOT, "--baseline", str(after), "--fail-on-regression"])
    assert code == 0, capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--fail-on-regression"], "--fail-on-regression needs --baseline"),
        (["--fail-over", "1.5"], "--fail-over must be a rate between 0 and 1"),
        (["--baseline", "/nonexistent/old.json"], "--baseline /nonexistent/old.json: cannot read"),
        (["--system-prompt", "x"], "--system-prompt applies to a model --chatbot"),
    ],
)
def test_bad_gate_flags_exit_2(capsys, flags, message):
    assert main(["probe", str(EXAMPLE), "--chatbot", CHATBOT, *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_a_bad_rule_exits_2_with_its_line(tmp_path, capsys):
    text = EXAMPLE.read_text().replace(
        "then: [?drug, contraindicated_in, ?period]", "then: [?drug, contraindicated_in, ?when]"
    )
    path = tmp_path / "facts.yaml"
    path.write_text(text)
    assert main(["probe", str(path), "--chatbot", CHATBOT]) == 2
    err = capsys.readouterr().err.strip()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "?when" in t)
    assert len(err.splitlines()) == 1 and f"(line {line})" in err and "?when" in err


def test_the_docs_commands_run_as_documented(tmp_path):
    """Every `$ guardrail ...` line of docs/probe.md runs, in order, from a folder holding the
    repository's examples; the exit codes and lines the page promises appear."""
    import shlex
    import subprocess
    import sys

    page = (ROOT / "docs" / "probe.md").read_text()
    commands = [line[2:] for line in page.splitlines() if line.startswith("$ guardrail ")]
    assert len(commands) == 3
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {"COLUMNS": "120", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    results = []
    for command in commands:
        argv = [sys.executable, "-m", "guardrail", *shlex.split(command)[1:]]
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
        )
        results.append(proc)
    first, baseline, gated = results
    assert first.returncode == 1, first.stderr  # the example bot hallucinates
    assert "hallucinations: 67 of 301 questions; refused 19, unparsed 0, errors 0" in first.stdout
    assert "hallucinations: 67 of 301 questions" in page
    assert (tmp_path / "probe-report.html").is_file()
    assert baseline.returncode == 1 and (tmp_path / "baseline.json").is_file()
    assert gated.returncode == 1, gated.stderr
    assert "0 of 131 questions asked both times turned wrong" in gated.stdout
    assert "gate failed: hallucination rate 32.1 % is over 20 %" in gated.stdout
    assert "regression" not in gated.stdout.split("gate failed")[1]
    # every flag the page mentions exists
    help_text = subprocess.run(
        [sys.executable, "-m", "guardrail", "probe", "--help"], capture_output=True, text=True,
        env={**env, "COLUMNS": "200"}, timeout=60,
    ).stdout  # fmt: skip
    import re

    for flag in set(re.findall(r"`(--[a-z-]+)", page)):
        assert flag in help_text or flag == "--relations", flag
