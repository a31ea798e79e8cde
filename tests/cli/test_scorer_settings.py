"""One scorer configuration through every entry point: Guard, ``check`` and ``eval``.

A policy sets RT4CHART knobs; the guard, ``check --policy`` and ``eval --policy`` must all
score with exactly those settings (they share ``build_scorer``). CLI flags override them
with validation: a bad value exits 2 with one line naming the flag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from guardrail import Guard
from guardrail.cli import main
from guardrail.policy import load_policy

DATA = Path(__file__).resolve().parents[1] / "data"
TINY = DATA / "eval_tiny.jsonl"

POLICY = """
name: rt-settings
scorer:
  method: rt4chart
  judge: local
  window: 3
  overlap: 1
  baseless_score: 0.4
  global_verification: false
  refine_spans: false
classifier: {default_topic: general}
topics:
  - {name: general, threshold: 0.5, examples: ["When is the library open?"]}
"""

EXPECTED = {
    "window": 3,
    "overlap": 1,
    "baseless_score": 0.4,
    "global_verification": False,
    "refine_spans": False,
}


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "rt.yaml"
    path.write_text(POLICY)
    return path


def test_guard_check_and_eval_score_with_the_policys_settings(
    policy_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    with Guard.from_yaml(policy_file, audit_log=None, review_db=tmp_path / "q.db") as guard:
        report = guard.check("When is it open?", "It opens at 9.", ["It opens at 9."]).report
    assert report is not None and report.method == "rt4chart"
    assert {k: report.settings[k] for k in EXPECTED} == EXPECTED

    argv = ["check", "-q", "When is it open?", "-a", "It opens at 9.", "-c", "It opens at 9."]
    argv += ["--json", "--policy", str(policy_file), "--review-db", str(tmp_path / "q.db")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "rt4chart"
    assert {k: out["settings"][k] for k in EXPECTED} == EXPECTED

    result = tmp_path / "eval.json"
    assert main(["eval", str(TINY), "--policy", str(policy_file), "--json-out", str(result)]) == 0
    data = json.loads(result.read_text())
    assert data["method"] == "rt4chart"
    assert {k: data["settings"][k] for k in EXPECTED} == EXPECTED
    assert data["settings"] == load_policy(policy_file).scorer.model_dump(mode="json")


def test_eval_flags_override_the_policy(policy_file: Path, tmp_path: Path):
    """--window replaces the policy's value; --method metarag keeps its judge and retries."""
    result = tmp_path / "eval.json"
    argv = ["eval", str(TINY), "--policy", str(policy_file), "--json-out", str(result)]
    assert main([*argv, "--window", "4"]) == 0
    assert json.loads(result.read_text())["settings"]["window"] == 4
    assert main([*argv, "--method", "metarag"]) == 0
    settings = json.loads(result.read_text())["settings"]
    assert settings["method"] == "metarag" and settings["k"] == 2 and "window" not in settings


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "-a", "x", "--k", "11"], "--k: Input should be less than or equal to 10"),
        (["check", "-a", "x", "--threshold", "nan"], "--threshold: Input should be a finite"),
        (["eval", str(TINY), "--method", "rt4chart", "--window", "0"], "--window: Input should"),
        (["eval", str(TINY), "--window", "5"], "--window: not a setting of method 'metarag'"),
        (
            ["eval", str(TINY), "--method", "rt4chart", "--window", "2", "--overlap", "2"],
            "--window, --overlap: overlap must be smaller than window",
        ),
        (["eval", str(TINY), "--threshold", "-0.1"], "--threshold: Input should be greater"),
    ],
)
def test_bad_flags_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"guardrail: error: {message}") and len(err.splitlines()) == 1


def test_a_validation_error_from_any_command_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """A pydantic ValidationError that reaches the CLI is bad input: exit 2, one line."""

    class Row(BaseModel):
        n: int

    def run(args: object) -> int:
        Row.model_validate({"n": "many"})
        return 0

    monkeypatch.setattr("guardrail.cli.check.run", run)
    assert main(["check", "-a", "x"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "guardrail: error: Row: n: Input should be a valid integer, unable to parse "
        "string as an integer, got 'many'\n"
    )
    with pytest.raises(ValidationError):  # outside the CLI it stays a ValidationError
        run(None)
