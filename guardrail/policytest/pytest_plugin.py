"""Run policy test cases as pytest tests: ``pytest --guardrail-cases CASES.yaml``.

Registered through the ``pytest11`` entry point, so installing guardrail makes the option
available; ``-p guardrail.policytest.pytest_plugin`` loads it explicitly. Each case becomes
one test item named after it (``-k`` selects cases), collected after the ordinary tests.
The policy is the one the case file names (``policy:``) unless ``--guardrail-policy`` is
given; ``--guardrail-judge`` replaces its judge. The module imports nothing of guardrail
until cases are collected, so loading the plugin costs an ordinary test run nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CaseFailed", "CaseItem"]


class CaseFailed(AssertionError):
    """A case's expectations were not met (or its turn raised)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("guardrail", "guardrail policy test cases")
    group.addoption(
        "--guardrail-cases",
        action="append",
        default=[],
        metavar="CASES.yaml",
        help="run the policy test cases of this file (repeatable)",
    )
    group.addoption(
        "--guardrail-policy",
        default=None,
        metavar="POLICY.yaml",
        help="the policy to test (default: the case file's `policy:`)",
    )
    group.addoption(
        "--guardrail-judge", default=None, metavar="SPEC", help="judge spec (default: the policy's)"
    )


class CaseItem(pytest.Item):
    """One policy test case."""

    def __init__(self, *, case: Any, policy: Path, judge: str | None, **kw: Any) -> None:
        super().__init__(**kw)
        self.case = case
        self.policy = policy
        self.judge = judge

    def runtest(self) -> None:
        from guardrail.policytest import CaseFile, run_cases

        (result,) = run_cases(self.policy, CaseFile(cases=[self.case]), judge=self.judge)
        if not result.passed:
            raise CaseFailed(result.error or "\n".join(result.failures))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            return f"case {self.case.name!r} on {self.policy.name}:\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"guardrail case {self.case.name}"


def _items(session: pytest.Session, path: Path) -> Iterator[CaseItem]:
    from guardrail.policytest import load_cases, policy_path

    config = session.config
    cases = load_cases(path)
    chosen = config.getoption("--guardrail-policy")
    policy = Path(chosen) if chosen else policy_path(path, cases)
    if policy is None:
        raise pytest.UsageError(f"{path}: names no policy; pass --guardrail-policy POLICY.yaml")
    # pytest.Dir (pytest 8) gives the items a node id under the case file's folder
    holder = (
        pytest.Dir.from_parent(session, path=path.parent) if hasattr(pytest, "Dir") else session
    )
    for case in cases.cases:
        yield CaseItem.from_parent(
            holder,
            name=f"{path.name}::{case.name}",
            case=case,
            policy=policy,
            judge=config.getoption("--guardrail-judge"),
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    for name in config.getoption("--guardrail-cases"):
        items.extend(_items(session, Path(name).resolve()))
