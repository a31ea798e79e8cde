"""Every code block of the README and the documentation site is run, parsed, compared or
explicitly skipped with a reason (see tests/docs/blocks.py for the marks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs.blocks import ROOT, Block, blocks, output_matches, pages
from tests.needs import unavailable

#: Variables a block must not see: the docs promise everything runs without a key.
_SECRETS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_BASE_URL")


def test_every_block_is_tested():
    """A block that is not run, parsed, compared or skipped with a reason fails here."""
    problems = []
    for page in pages():
        for block in blocks(page):
            if block.kind == "unmarked":
                lang = block.lang or "(no language)"
                problems.append(
                    f"{block.where}: a {lang} block is neither run nor marked "
                    "<!-- docs-test: skip REASON --> or <!-- docs-test: output -->"
                )
            elif block.kind == "skip" and not block.reason:
                problems.append(f"{block.where}: a skipped block needs a reason")
    assert not problems, "\n".join(problems)


def test_the_marks_are_read():
    """The parser itself: marks bind to the next block only, and '...' is a wildcard."""
    page = ROOT / "README.md"
    kinds = {b.kind for b in blocks(page)}
    assert "run" in kinds and "output" in kinds
    assert output_matches("a ... c\nd", "a b b c  \nd")
    assert not output_matches("a ... c", "a b d")


def _workdir(tmp_path: Path) -> dict[str, str]:
    """A scratch folder that looks like a fresh clone's root, and the environment to run in."""
    for name in ("policies", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    for name, body in (("guardrail", "-m guardrail"), ("python", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {body} "$@"\n')
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in _SECRETS}
    env.update(
        PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}",
        PYTHONPATH=str(ROOT),
        COLUMNS="80",
        NO_COLOR="1",
        TERM="dumb",
    )
    return env


def _missing(part: str) -> str | None:
    """Why ``part`` (a ``needs`` mark) cannot run here, or None."""
    import importlib.util

    if part == "postgres":
        from guardrail.queues.pgcluster import missing_reason

        return missing_reason()
    if part in ("ray", "clingo"):
        return None if importlib.util.find_spec(part) else f"{part} is not installed"
    return f"unknown part {part!r} in a docs-test needs mark"


def _run(block: Block, cwd: Path, env: dict[str, str], n: int) -> str:
    script = cwd / f".block{n}.{'py' if block.lang == 'python' else 'sh'}"
    script.write_text(block.code, encoding="utf-8")
    if block.lang == "python":
        argv = [sys.executable, str(script)]
    else:
        argv = ["bash", "-e", "-o", "pipefail", str(script)]
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (
        f"{block.where}: exit {proc.returncode}\n"
        f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    )
    return proc.stdout


def _parse(block: Block, scratch: Path) -> None:
    if block.lang == "json":
        text = block.code.strip()
        try:
            json.loads(text)
        except ValueError:
            for line in text.splitlines():  # JSON Lines
                json.loads(line)
        return
    doc = yaml.safe_load(block.code)
    if isinstance(doc, dict) and "topics" in doc and "name" in doc:
        from guardrail.policy import load_policy

        path = scratch / ".policy-check.yaml"
        path.write_text(block.code, encoding="utf-8")
        load_policy(path)


_PAGES = [p for p in pages() if any(b.kind in ("run", "parse") for b in blocks(p))]


@pytest.mark.parametrize("page", _PAGES, ids=[str(p.relative_to(ROOT)) for p in _PAGES])
def test_page_blocks(page: Path, tmp_path: Path):
    """Run the page's blocks in order in one scratch folder; compare the marked outputs."""
    env = _workdir(tmp_path)
    last: tuple[Block, str] | None = None
    for n, block in enumerate(blocks(page)):
        if block.kind == "run":
            if block.mark == "needs" and (why := _missing(block.reason)):
                unavailable(block.reason, f"{block.where}: {why}")
            last = (block, _run(block, tmp_path, env, n))
        elif block.kind == "parse":
            _parse(block, tmp_path)
        elif block.kind == "output":
            assert last is not None, f"{block.where}: an output block with no block run before it"
            ran, out = last
            assert output_matches(block.code, out), (
                f"{block.where}: the output of {ran.where} differs\n--- documented\n{block.code}"
                f"--- actual\n{out}"
            )


def test_readme_links_point_at_pages_that_exist():
    """The README links into docs/ by relative path (they work on a code host and offline)."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(((?!https?://)[^)#]+)", text)
    assert targets, "the README links into the documentation"
    missing = [t for t in targets if not (ROOT / t).is_file()]
    assert not missing, missing
    assert len(text.splitlines()) <= 200
