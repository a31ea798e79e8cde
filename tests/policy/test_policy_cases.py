"""Policy tests as code: case files, expectations, a broken policy caught, JUnit XML."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from guardrail.exceptions import ConfigError
from guardrail.policytest import (
    CaseFile,
    CaseResult,
    Expect,
    check_expectation,
    load_cases,
    run_cases,
    write_junit,
)
from guardrail.policytest.runner import _run_one

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "policies" / "default.cases.yaml"
GENERAL = {"general-faithful-passes", "general-password-reset-passes",
           "general-contradicted-highlighted"}  # fmt: skip


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> list[CaseResult]:
    """The default cases run against a copy of the policy whose general threshold is 0."""
    folder = tmp_path_factory.mktemp("broken")
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    assert text.count("threshold: 0.5\n") == 1
    (folder / "default.yaml").write_text(text.replace("threshold: 0.5\n", "threshold: 0.0\n"))
    shutil.copy(ROOT / "policies" / "policy.schema.json", folder)
    return run_cases(folder / "default.yaml", load_cases(CASES))


def test_broken_threshold_fails_the_named_cases(broken: list[CaseResult]) -> None:
    """Threshold 0 for `general` flags faithful answers: exactly the general cases fail."""
    assert {r.name for r in broken if not r.passed} == GENERAL
    faithful = next(r for r in broken if r.name == "general-faithful-passes")
    assert "action: expected 'pass', got 'highlight'" in faithful.failures


def test_junit_xml_reads_back_with_a_junit_parser(broken: list[CaseResult], tmp_path) -> None:
    """junitparser reads the file: counts, names and failure messages as written."""
    out = tmp_path / "junit.xml"
    write_junit(out, broken, suite="default.cases.yaml", policy="default", judge="local")
    xml = JUnitXml.fromfile(str(out))
    (suite,) = list(xml)
    assert (suite.tests, suite.failures, suite.errors) == (len(broken), 3, 0)
    failed = {
        case.name: case.result[0].message
        for case in suite
        if case.result and isinstance(case.result[0], Failure)
    }
    assert set(failed) == GENERAL
    assert failed["general-password-reset-passes"] == "action: expected 'pass', got 'highlight'"
    assert all(case.classname == "default" for case in suite)


def test_crashing_case_is_an_error_not_a_pass(tmp_path) -> None:
    """A turn that raises is reported as an error, fails the run and is an <error> in JUnit."""

    class Exploding:
        def check(self, *args: object, **kw: object) -> None:
            raise RuntimeError("judge backend exploded")

    case = load_cases(CASES).cases[0]
    result = _run_one(Exploding(), case)  # type: ignore[arg-type]
    assert not result.passed and result.error == "RuntimeError: judge backend exploded"
    write_junit(tmp_path / "j.xml", [result], suite="s", policy="p", judge="j")
    (suite,) = list(JUnitXml.fromfile(str(tmp_path / "j.xml")))
    assert suite.errors == 1 and isinstance(next(iter(suite)).result[0], Error)


def test_unscored_turn_fails_score_bounds() -> None:
    """A score bound is not met by a turn that has no score (fail closed)."""
    seen = {"topic": "t", "action": "escalate", "actions": ["escalate"], "flagged": False,
            "scored": False, "score": None, "queue": "q", "reason": "scoring failed"}  # fmt: skip
    assert check_expectation(Expect(score_below=0.3), seen) == ["score: expected < 0.3, got None"]
    assert check_expectation(Expect(score_at_least=0.3), seen)
    assert check_expectation(Expect(queue="q", scored=False), seen) == []


def test_every_expectation_key_is_checked() -> None:
    """Each key of expect, when wrong, yields its own failure line."""
    seen = {"topic": "general", "action": "pass", "actions": [], "flagged": False,
            "scored": True, "score": 0.1, "queue": None, "reason": "not flagged"}  # fmt: skip
    wrong = Expect(topic="healthcare", action="escalate", actions_include=["cite"], flagged=True,
                   scored=False, queue="clinical-review", reason_contains=["flagged;"],
                   score_at_least=0.5, score_below=0.05)  # fmt: skip
    lines = check_expectation(wrong, seen)
    keys = sorted(line.split(":")[0] for line in lines)
    assert keys == ["action", "actions", "flagged", "queue", "reason", "score", "score",
                    "scored", "topic"]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("cases:\n  - {name: a, question: q, answer: x, expect: {}}\n", "expect is empty"),
        ("cases:\n  - {name: a, question: q, answer: x, expect: {topik: general}}\n", "topik"),
        ("cases:\n  - {name: a, question: q, answer: x, expect: {flagged: true}}\n"
         "  - {name: a, question: q, answer: y, expect: {flagged: false}}\n", "two cases"),
        ("cases: []\n", "cases"),
        ("cases: [\n", "not valid YAML"),
    ],
)  # fmt: skip
def test_bad_case_files_are_refused(tmp_path, body: str, message: str) -> None:
    """A case that cannot fail, a misspelt key, a duplicate name: refused with the place."""
    path = tmp_path / "c.yaml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message) as err:
        load_cases(path)
    assert str(path) in str(err.value)


def test_policy_path_is_relative_to_the_case_file() -> None:
    """`policy:` names a file beside the case file, wherever the command runs."""
    from guardrail.policytest import policy_path

    cases = load_cases(CASES)
    assert policy_path(CASES, cases) == (ROOT / "policies" / "default.yaml").resolve()
    assert policy_path(CASES, CaseFile(cases=cases.cases)) is None
