"""``guardrail test`` and ``pytest --guardrail-cases`` on the command line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from junitparser import JUnitXml

from guardrail.cli import main
from guardrail.policytest import load_cases

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "policies" / "default.cases.yaml"
#: The default policy's cases; a broken `general` threshold fails three of them.
N = len(load_cases(CASES).cases)


def _broken_copy(folder: Path) -> Path:
    """A copy of the default policy whose `general` threshold is 0, with its case file."""
    text = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    (folder / "default.yaml").write_text(text.replace("threshold: 0.5\n", "threshold: 0.0\n"))
    shutil.copy(ROOT / "policies" / "policy.schema.json", folder)
    shutil.copy(CASES, folder)
    return folder / "default.yaml"


def test_default_cases_pass_and_write_junit(tmp_path, capsys) -> None:
    """Exit 0, a table with every case, and JUnit XML without failures."""
    out = tmp_path / "junit.xml"
    code = main(["test", str(ROOT / "policies" / "default.yaml"), str(CASES),
                 "--junit-xml", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"{N} passed, 0 failed" in printed
    (suite,) = list(JUnitXml.fromfile(str(out)))
    assert (suite.tests, suite.failures, suite.errors) == (N, 0, 0)


def test_broken_policy_exits_1_and_names_the_cases(tmp_path, capsys) -> None:
    """A broken threshold: exit 1, the failing cases and why are printed."""
    policy = _broken_copy(tmp_path)
    code = main(["test", str(policy), str(CASES)])
    printed = capsys.readouterr().out
    assert code == 1
    assert f"{N - 3} passed, 3 failed" in printed
    assert "general-faithful-passes\n  action: expected 'pass', got 'highlight'" in printed


def test_unknown_case_name_is_refused(capsys) -> None:
    """--case with a name the file lacks: exit 2, not an empty green run."""
    code = main(["test", str(ROOT / "policies" / "default.yaml"), str(CASES), "--case", "nope"])
    assert code == 2
    assert "no case named 'nope'" in capsys.readouterr().err


def _pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "guardrail.policytest.pytest_plugin",
         "-p", "no:cacheprovider", "-q", "--rootdir", str(cwd), *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_pytest_plugin_runs_cases_as_tests(tmp_path) -> None:
    """`pytest --guardrail-cases` collects one test per case; all pass on the default policy."""
    run = _pytest("--guardrail-cases", str(CASES), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{N} passed" in run.stdout


def test_pytest_plugin_fails_on_a_broken_policy(tmp_path) -> None:
    """With --guardrail-policy on a broken copy, pytest fails exactly the general cases."""
    policy = _broken_copy(tmp_path)
    run = _pytest("--guardrail-cases", str(CASES), "--guardrail-policy", str(policy),
                  "-k", "general or labour", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    # the unread-language and nothing-to-verify cases abstain either way
    assert "3 failed, 8 passed" in run.stdout
    assert "general-password-reset-passes" in run.stdout
