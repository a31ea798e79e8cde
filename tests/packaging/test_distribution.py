"""The distribution: one version, a free name used by every install line, the shipped
policies reachable from an install without a clone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import guardrail
from guardrail.cli import main
from guardrail.exceptions import ConfigError
from guardrail.policy import load_policy
from guardrail.policy.shipped import shipped_policy_names, shipped_policy_text

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
NAME = PYPROJECT["project"]["name"]


def test_the_version_is_written_once():
    """pyproject.toml reads the version from guardrail/_version.py; it holds none itself, and
    no other module of the package writes it."""
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "guardrail._version.__version__"
    written = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "guardrail").rglob("*.py")
        if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.M)
    ]
    assert written == ["guardrail/_version.py"]
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]\d+|rc\d+)?", guardrail.__version__)


def test_version_flag_prints_it():
    """`guardrail --version` prints the package's version."""
    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", "--version"], capture_output=True, text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout == f"guardrail {guardrail.__version__}\n"


def _install_lines() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = []
    for page in pages:
        for line in page.read_text(encoding="utf-8").splitlines():
            for match in re.finditer(r"pip install\s+(?:-{1,2}\S+\s+)*(\S+)", line):
                found.append((page.relative_to(ROOT).as_posix(), match.group(1)))
    return found


def test_install_lines_name_this_distribution():
    """No page tells a user to install `guardrail` (another project on the package index):
    outside a clone it is NAME or NAME[extra], inside it `-e .` or `-e '.[extra]'`."""
    lines = _install_lines()
    assert any(target.strip("'\"") == NAME for _, target in lines), "no plain install line"
    wrong = [
        (page, target)
        for page, target in lines
        if re.fullmatch(r"['\"]?guardrail(\[[\w,-]+\])?['\"]?", target)
    ]
    assert not wrong, wrong


def test_every_extra_named_in_an_install_line_exists():
    """`NAME[x]` and `-e '.[x]'` name extras pyproject.toml defines."""
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    named = {
        extra
        for _, target in _install_lines()
        for group in re.findall(r"\[([\w,-]+)\]", target)
        for extra in group.split(",")
    }
    assert named and named <= extras, named - extras


def test_the_shipped_policies_are_the_repository_policies():
    """The package's policies are the files in policies/ (a link, never a stale copy)."""
    names = shipped_policy_names()
    assert names[0] == "default"
    policies = {p.stem for p in (ROOT / "policies").glob("*.yaml")}
    assert set(names) == {n for n in policies if not n.endswith(".cases")}
    for name in names:
        assert shipped_policy_text(name) == (ROOT / "policies" / f"{name}.yaml").read_text()


def test_an_unknown_shipped_policy_names_the_choices():
    """A wrong name is a ConfigError listing what ships."""
    with pytest.raises(ConfigError, match="default, finance, legal-aid"):
        shipped_policy_text("nope")


def test_policy_init_writes_a_policy_that_loads(tmp_path, monkeypatch, capsys):
    """`guardrail policy init` puts policies/default.yaml and its schema in the folder."""
    monkeypatch.chdir(tmp_path)
    assert main(["policy", "init"]) == 0
    assert load_policy(tmp_path / "policies" / "default.yaml").name == "default"
    assert (tmp_path / "policies" / "policy.schema.json").read_text() == (
        ROOT / "policies" / "policy.schema.json"
    ).read_text()
    assert main(["policy", "init", "finance"]) == 0  # the same schema again: kept, no error


def test_policy_init_keeps_an_edited_file(tmp_path, monkeypatch, capsys):
    """An edited policy is not overwritten without --force (exit 2, one line)."""
    monkeypatch.chdir(tmp_path)
    main(["policy", "init"])
    edited = tmp_path / "policies" / "default.yaml"
    edited.write_text("# mine\n")
    assert main(["policy", "init"]) == 2
    assert "exists and differs" in capsys.readouterr().err
    assert edited.read_text() == "# mine\n"
    assert main(["policy", "init", "--force"]) == 0
    assert edited.read_text() == shipped_policy_text()
