"""Hostile policy files: alias bombs, recursive aliases and huge files fail fast and cleanly."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guardrail.exceptions import PolicyError
from guardrail.policy import load_policy, parse_policy

#: 396 bytes that expand to 9**9 (387 million) strings: the "billion laughs".
BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


def test_an_alias_bomb_is_refused_at_once():
    started = time.perf_counter()
    with pytest.raises(PolicyError, match="expands to more than 100000 nodes"):
        parse_policy(BOMB)
    assert time.perf_counter() - started < 1.0


def test_the_node_limit_is_configurable():
    """A policy with a few aliases loads; lower the limit and the same file is refused."""
    text = (
        "name: p\n"
        "classifier: {default_topic: general}\n"
        "topics:\n"
        "  - {name: general, threshold: 0.5, on_flag: &flag {cite: true}}\n"
        "  - {name: legal, threshold: 0.3, on_flag: *flag}\n"
    )
    assert parse_policy(text).topics[1].on_flag.cite is True
    with pytest.raises(PolicyError, match="expands to more than 10 nodes"):
        parse_policy(text, max_nodes=10)


def test_a_recursive_alias_is_a_clear_error():
    with pytest.raises(PolicyError, match="recursive alias"):
        parse_policy("name: &a [*a]\n")


def test_a_huge_policy_file_is_refused_before_it_is_parsed(tmp_path: Path):
    path = tmp_path / "huge.yaml"
    path.write_text("name: p\ndescription: '" + "x" * 2_000_000 + "'\n")
    started = time.perf_counter()
    with pytest.raises(PolicyError, match="larger than 1000000 bytes"):
        load_policy(path)
    assert time.perf_counter() - started < 1.0
    with pytest.raises(PolicyError, match="larger than 100 bytes"):
        load_policy(path, max_bytes=100)


def test_the_cli_refuses_the_bomb_with_exit_2_in_bounded_memory(tmp_path: Path):
    """`guardrail policy validate` on the bomb: one line, exit 2, well under 1 GB and 10 s."""
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    limit = 1 << 30

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", "policy", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=10,
        preexec_fn=cap_memory,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().endswith("(aliases included)")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert time.perf_counter() - started < 10
