"""What ``import guardrail`` and ``guardrail --help`` load, read from ``sys.modules`` in a fresh
process. How long they take is measured by ``benchmarks/import_time.py``, not here: timed tests
flake, the set of loaded modules does not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardrail.cli import build_parser
from guardrail.cli.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
#: Libraries that take from tens of milliseconds to a second to import.
HEAVY = ("sklearn", "scipy", "numpy", "openai", "anthropic")

TWO_TOPICS = """
from guardrail.policy.schema import TopicRule
from guardrail.topics import TopicClassifier
TopicClassifier(
    [TopicRule(name="general", threshold=0.5, examples=["hello there"]),
     TopicRule(name="health", threshold=0.5, examples=["is ibuprofen safe"])],
    default_topic="general",
)
"""  # fmt: skip

HELP = """
import contextlib, io
from guardrail.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main({argv!r})
"""


def modules_after(code: str) -> set[str]:
    """The top-level names of sys.modules after running ``code`` in a new interpreter."""
    report = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\n{report}"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {m.partition(".")[0] for m in modules}


def ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "guardrail" or m.startswith("guardrail.")}


def test_import_guardrail_loads_only_the_exceptions():
    """The public names load on first use; ``import guardrail`` itself loads no library."""
    loaded = modules_after("import guardrail")
    assert ours(loaded) == {"guardrail", "guardrail._version", "guardrail.exceptions"}
    assert not top_level(loaded) & {*HEAVY, "pydantic", "httpx", "rich", "structlog", "yaml"}


def test_guard_loads_scikit_learn_only_when_a_classifier_is_built():
    """Importing the Guard pulls in no ML library or SDK; training a topic model loads sklearn."""
    assert not top_level(modules_after("from guardrail import Guard")) & set(HEAVY)
    assert "sklearn" in top_level(modules_after(TWO_TOPICS))


def test_help_loads_no_subcommand_module():
    """``guardrail --help`` reads the command table; no subcommand module is imported."""
    loaded = modules_after(HELP.format(argv=["--help"]))
    assert ours(loaded) == {
        "guardrail",
        "guardrail._version",
        "guardrail.exceptions",
        "guardrail.cli",
        "guardrail.cli.commands",
    }
    assert not top_level(loaded) & {*HEAVY, "pydantic", "rich"}


def test_a_subcommand_loads_its_own_module_only():
    """``guardrail audit --help`` imports the audit command, and no other command's module."""
    loaded = ours(modules_after(HELP.format(argv=["audit", "--help"])))
    assert "guardrail.cli.audit" in loaded
    assert not loaded & {c.module for name, c in COMMANDS.items() if name != "audit"}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_loading_a_command_leaves_the_command_list_unchanged(name):
    """Each module registers its commands at their table position, with the table's summary."""
    assert build_parser([name]).format_help() == build_parser([]).format_help()
