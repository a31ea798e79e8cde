"""At 80 columns the terminal output of `check`, `eval`, `calibrate`, `review list` and `probe`
fits the terminal and never cuts a figure, an id or a header with "…".

Each command runs as a subprocess (the way a user's terminal sets COLUMNS) on two kinds of
input: the ``dev`` cases are the ones the layout was designed on (the documentation's
examples); the ``held-out`` cases were not looked at while designing it (other data, long
labels, long ids and names), so they show whether the layout holds in general.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 80
DEMO = ROOT / "examples" / "demo.py"
FACTS = ROOT / "examples" / "probe" / "healthcare.yaml"
BOT = f"{ROOT / 'examples' / 'probe' / 'chatbot.py'}:answer"


def guardrail(*args: str, cwd: Path, ok: tuple[int, ...] = (0,)) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "COLUMNS": str(WIDTH),
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode in ok, proc.stderr
    return proc.stdout


def assert_fits(out: str, *whole: str, previews: tuple[str, ...] = ()) -> None:
    """Every line within WIDTH, each of ``whole`` printed uncut, and no "…" except where a
    list previews a long text of ``previews`` (a question): never in a figure, id or header."""
    wide = [line for line in out.splitlines() if len(line.rstrip()) > WIDTH]
    assert not wide, f"{len(wide)} lines wider than {WIDTH}:\n" + "\n".join(wide)
    words = {w for text in previews for w in text.split()}
    cut = [w for w in out.split() if "…" in w]
    unexplained = [w for w in cut if not any(p.startswith(w.rstrip("…")) for p in words)]
    assert not unexplained, f"cut with '…': {unexplained}\n{out}"
    flat = " ".join(out.split())
    missing = [w for w in whole if w not in out and w not in flat]
    assert not missing, f"not printed whole: {missing}\n{out}"


# -- check -------------------------------------------------------------------------------------

CHECKS = {
    "dev": (
        "Can pregnant women take ibuprofen?",
        "Yes, ibuprofen is safe throughout pregnancy. It helps with back pain.",
        "Ibuprofen is contraindicated in the third trimester of pregnancy.",
    ),
    "held-out": (
        "What does the residence permit allow?",
        "Holders of the temporary humanitarian residence permit may work for any employer "
        "immediately. They can also bring their grandparents. The permit is valid for ten "
        "years and renews automatically.",
        "The temporary humanitarian residence permit is valid for one year. Holders may work "
        "after six months with a permit from the labour office.",
    ),
}


@pytest.mark.parametrize("case", list(CHECKS))
@pytest.mark.parametrize("policy", [False, True], ids=["scorer", "policy"])
def test_check_fits(case: str, policy: bool, tmp_path: Path):
    """The factoid table, the answer and the decision lines fit; scores are whole."""
    question, answer, context = CHECKS[case]
    args = ["check", "-q", question, "-a", answer, "-c", context]
    data = json.loads(guardrail(*args, "--json", cwd=tmp_path))
    if policy:  # the audit log and review queue go to the working directory, tmp_path
        args += ["--policy", str(ROOT / "policies" / "default.yaml")]
    out = guardrail(*args, cwd=tmp_path)
    scores = [f"{f['score']:.2f}" for f in data["factoids"]]
    assert_fits(out, "synonyms", "antonyms", *scores)


def test_a_scorer_without_variants_shows_no_verdicts_column(tmp_path: Path):
    """RT4CHART verifies claims without synonym/antonym variants: no empty verdicts column."""
    policy = tmp_path / "rt.yaml"
    policy.write_text(
        "name: rt\nscorer: {method: rt4chart}\ntopics: [{name: general, threshold: 0.5}]\n"
    )
    question, answer, context = CHECKS["held-out"]
    out = guardrail(
        "check", "-q", question, "-a", answer, "-c", context, "--policy", str(policy),
        "--audit-log", str(tmp_path / "a.jsonl"), "--review-db", str(tmp_path / "r.sqlite3"),
        cwd=tmp_path,
    )  # fmt: skip
    assert "factoid" in out and "verdicts" not in out and "synonyms" not in out
    assert_fits(out)


# -- eval and calibrate ------------------------------------------------------------------------

DATASETS = {
    "dev": ROOT / "examples" / "data" / "sample.jsonl",
    "held-out": ROOT / "tests" / "data" / "eval_tiny.jsonl",
}


@pytest.mark.parametrize("case", list(DATASETS))
def test_eval_fits(case: str, tmp_path: Path):
    """The figures table's headers (unscored, span P/R/F1) and task names are whole."""
    report = tmp_path / "eval.json"
    out = guardrail(
        "eval", str(DATASETS[case]), "--shuffle", "0", "--json-out", str(report), cwd=tmp_path
    )
    data = json.loads(report.read_text())
    tasks = list(data["tasks"])
    f1 = f"{data['answer']['f1']:.3f}"
    assert_fits(out, "unscored", "span", "F1", f1, *tasks)


@pytest.mark.parametrize("case", list(DATASETS))
def test_calibrate_fits(case: str, tmp_path: Path):
    """The threshold lines wrap at the terminal's width."""
    out = guardrail(
        "calibrate", str(DATASETS[case]), "--shuffle", "0", "--policy",
        str(ROOT / "policies" / "default.yaml"), "--topic", "general", "--out",
        str(tmp_path / "tuned.yaml"), cwd=tmp_path,
    )  # fmt: skip
    assert_fits(out, "maximizes")


# -- review list -------------------------------------------------------------------------------


def _demo_queue(tmp_path: Path) -> Path:
    subprocess.run(
        [sys.executable, str(DEMO), "--out", str(tmp_path / "demo")], cwd=tmp_path, check=True,
        capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
    )  # fmt: skip
    return tmp_path / "demo" / "review.sqlite3"


def _long_queue(tmp_path: Path) -> Path:
    from guardrail.models import Decision, EscalationCase
    from guardrail.queues import ReviewQueue

    db = tmp_path / "long.sqlite3"
    queue = ReviewQueue(db)
    for n, (name, topic) in enumerate(
        [("employment-and-residence-permits", "labour-eligibility"), ("clinical", "pregnancy")]
    ):
        queue.add(
            EscalationCase(
                case_id=f"{n}f3c9a7e2b14d4c0e9a1b7d5e3c2f8a6{n}-retry",
                queue=name,
                created_at="2026-01-01T00:00:00+00:00",
                policy="default",
                question="Can a refugee with a pending appeal start an apprenticeship while "
                "the municipality reviews the housing allowance decision? " * 2,
                answer="Yes.",
                contexts=["No."],
                decision=Decision(
                    action="escalate",
                    actions=["escalate"],
                    flagged=True,
                    score=0.8125,
                    threshold=0.3,
                    topic=topic,
                    queue=name,
                    reason="test",
                ),
            )
        )
    queue.claim("0f3c9a7e2b14d4c0e9a1b7d5e3c2f8a60-retry", "maria.gonzalez-fernandez")
    return db


QUEUES: dict[str, Callable[[Path], Path]] = {"dev": _demo_queue, "held-out": _long_queue}


@pytest.mark.parametrize("case", list(QUEUES))
def test_review_list_fits(case: str, tmp_path: Path):
    """Case ids and scores are printed whole at 80 columns (queue, topic and reviewer names
    are labels: they may wrap); only a long question is previewed with "…"."""
    from guardrail.queues import ReviewQueue

    db = QUEUES[case](tmp_path)
    cases = ReviewQueue(db).list(state=None)
    out = guardrail(
        "review", "list", "--state", "all", "--db", str(db), "--audit-log",
        str(tmp_path / "a.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    whole = [c.case_id for c in cases]
    whole += [f"{c.case.decision.score:.2f}" for c in cases if c.case.decision.score is not None]
    assert_fits(out, *whole, previews=tuple(c.case.question for c in cases))


# -- probe -------------------------------------------------------------------------------------


def _facts(case: str, tmp_path: Path) -> Path:
    if case == "dev":
        return FACTS
    text = FACTS.read_text(encoding="utf-8")  # the same world, with long relation names
    for name in ("contraindicated_in", "recommended_for", "interacts_with", "belongs_to"):
        text = text.replace(name, f"{name}_according_to_the_national_formulary")
    path = tmp_path / "long.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", ["dev", "held-out"])
def test_probe_fits(case: str, tmp_path: Path):
    """Both tables fit: rates and counts are whole, and so is every header word."""
    if importlib.util.find_spec("clingo") is None:
        unavailable("clingo", "clingo is not installed (pip install -e '.[probe]')")
    report = tmp_path / "probe.json"
    out = guardrail(
        "probe", str(_facts(case, tmp_path)), "--chatbot", BOT, "--json-out", str(report),
        cwd=tmp_path, ok=(0, 1),
    )  # fmt: skip
    data = json.loads(report.read_text())
    figures = set()
    for group in ("by_rule", "by_relation"):
        for block in data[group].values():
            rate = block["hallucination_rate"]
            figures |= {str(block["questions"]), str(block["correct"])}
            if rate is not None:
                figures.add(f"{100 * rate:.1f}")
    assert_fits(out, "asked", "correct", "refused", "wrong", "errors", *sorted(figures))
