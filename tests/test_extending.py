"""docs/extending.md and examples/extending/: each example runs and does what the page says,
the page shows the examples' code as it is, and plug-ins are found through entry points."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "extending"
PAGE = ROOT / "docs" / "extending.md"


def run_python(code_or_path: str | Path, *, extra_path: Path | None = None) -> str:
    """Run a file (or ``-c`` code) in a fresh interpreter: registrations stay in it."""
    paths = [str(ROOT)] + ([str(extra_path)] if extra_path else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    args = [str(code_or_path)] if isinstance(code_or_path, Path) else ["-c", code_or_path]
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def page_blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("name", ["routed_judge", "overlap_scorer", "source_note"])
def test_the_page_shows_each_example_as_it_is(name: str):
    assert (EXAMPLES / f"{name}.py").read_text(encoding="utf-8") in page_blocks("python")


def _scorer_plugin(tmp_path: Path, name: str) -> Path:
    """A folder holding an installed scorer plug-in ``name`` (a renamed copy of the example)."""
    code = (EXAMPLES / "overlap_scorer.py").read_text(encoding="utf-8")
    (tmp_path / f"{name}_scorer.py").write_text(code.replace("overlap", name), encoding="utf-8")
    info = tmp_path / f"{name}_scorer-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-scorer\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[guardrail.scorers]\n{name} = {name}_scorer\n")
    return tmp_path


def shown_output(name: str) -> str:
    block = next(b for b in page_blocks("console") if f"extending/{name}.py" in b)
    return block.split("\n", 1)[1]


def without_plugins(output: str, extra_path: Path | None = None) -> str:
    """``output`` less the methods that installed plug-ins add to the printed list (the
    example prints every registered method, a user's plug-ins included)."""
    found = run_python(
        "from guardrail.plugins import plugin_names\n"
        "print(' '.join(plugin_names('guardrail.scorers')))\n",
        extra_path=extra_path,
    ).split()
    for plugin in found:
        output = output.replace(f", {plugin}", "")
    return output


@pytest.mark.parametrize("name", ["routed_judge", "overlap_scorer", "source_note"])
def test_each_example_prints_what_the_page_shows(name: str):
    """The console block after the example on the page is its real output."""
    out = run_python(EXAMPLES / f"{name}.py")
    assert without_plugins(out) == shown_output(name)


def test_an_installed_scorer_plugin_does_not_break_the_page_check(tmp_path: Path):
    """With another scorer installed as a plug-in the example lists it too, and the check
    still compares the rest of the output with the page."""
    extra = _scorer_plugin(tmp_path, "acme")
    out = run_python(EXAMPLES / "overlap_scorer.py", extra_path=extra)
    assert "methods: metarag, rt4chart, overlap, acme" in out
    assert without_plugins(out, extra) == shown_output("overlap_scorer")


def test_the_routed_judge_sends_only_verdicts_to_the_named_judge():
    out = run_python(EXAMPLES / "routed_judge.py")
    assert "verify     answered by test" in out
    assert "decompose  answered by local-trained-v1" in out


def test_a_registered_scorer_is_a_policy_method_a_cli_choice_and_in_the_schema():
    out = run_python(
        "import runpy, json\n"
        "runpy.run_path('examples/extending/overlap_scorer.py')\n"
        "from guardrail.policy.schema import Policy\n"
        "from guardrail.cli.options import METHODS\n"
        "from guardrail.exceptions import PolicyError\n"
        "from guardrail.policy import parse_policy\n"
        "schema = json.dumps(Policy.json_schema())\n"
        "print('OverlapSettings' in schema, 'overlap' in METHODS)\n"
        "try:\n"
        "    parse_policy('name: t\\nscorer: {method: overlap, k: 2}\\n"
        "topics: [{name: general, threshold: 0.5}]\\n')\n"
        "except PolicyError as exc:\n"
        "    print('refused:', exc)\n"
    )
    first, refused = out.splitlines()[:2]
    assert first == "True True"
    assert "scorer.k" in refused  # a setting of another method is not one of overlap's


def test_the_testing_example_on_the_page_runs():
    (code,) = [b for b in page_blocks("python") if "override" in b]
    namespace: dict[str, object] = {}
    exec(compile(code, str(PAGE), "exec"), namespace)


def test_plugins_are_found_through_entry_points_and_imported_only_when_named(tmp_path: Path):
    """A package's entry points provide a judge, a scorer and an action; none is imported
    before its name is used."""
    package = tmp_path / "acme_plugin"
    package.mkdir()
    for name in ("routed_judge", "overlap_scorer", "source_note"):
        (package / f"{name}.py").write_text((EXAMPLES / f"{name}.py").read_text())
    (package / "__init__.py").write_text("")
    info = tmp_path / "acme_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """
            [guardrail.judges]
            routed = acme_plugin.routed_judge

            [guardrail.scorers]
            overlap = acme_plugin.overlap_scorer

            [guardrail.actions]
            source-note = acme_plugin.source_note
            """
        )
    )
    out = run_python(
        "import sys\n"
        "from guardrail.judges.registry import make_judge, registered_judges\n"
        "print('routed' in registered_judges(), 'acme_plugin.routed_judge' in sys.modules)\n"
        "print(make_judge('routed:test').name, 'acme_plugin.routed_judge' in sys.modules)\n"
        "print('acme_plugin.source_note' in sys.modules)\n"
        "from guardrail.policy import parse_policy\n"
        "p = parse_policy('name: t\\nscorer: {method: overlap}\\n"
        "topics: [{name: general, threshold: 0.5, on_flag: {custom: [source-note]}}]\\n')\n"
        "print(p.scorer.method, 'acme_plugin.source_note' in sys.modules)\n",
        extra_path=tmp_path,
    )
    assert out.splitlines() == [
        "True False",
        "routed:test True",
        "False",
        "overlap True",
    ]


def test_a_plugin_that_fails_to_import_is_named(tmp_path: Path):
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[guardrail.judges]\nbroken = no_such_module\n")
    out = run_python(
        "from guardrail.judges.registry import make_judge\n"
        "from guardrail.exceptions import ConfigError\n"
        "try:\n"
        "    make_judge('broken:x')\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n",
        extra_path=tmp_path,
    )
    assert "plug-in 'broken'" in out and "no_such_module" in out


def test_importing_the_package_and_its_commands_run_no_plugin_code(tmp_path: Path):
    """Installed plug-ins of every kind are not imported by ``from guardrail import Guard``,
    ``check --help`` or ``schema``: a plug-in's module code runs only once its name is used."""
    marker = tmp_path / "imported"
    info = tmp_path / "loud_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: loud-plugin\nVersion: 1.0\n")
    groups = ("judges", "scorers", "actions")
    (info / "entry_points.txt").write_text(
        "".join(f"[guardrail.{group}]\nloud = loud_plugin\n\n" for group in groups)
    )
    (tmp_path / "loud_plugin.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
    )
    run_python(
        "from guardrail import Guard\n"
        "from guardrail.cli import main\n"
        "for argv in (['check', '--help'], ['schema']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n",
        extra_path=tmp_path,
    )
    assert not marker.exists()
    run_python(
        "from guardrail.judges.registry import make_judge\n"
        "try:\n"
        "    make_judge('loud:x')\n"
        "except Exception:\n"
        "    pass\n",
        extra_path=tmp_path,
    )
    assert marker.exists()  # the same plug-in is imported once named: the test can see it
