"""Policy tests as code: ``guardrail test POLICY CASES.yaml``.

* :func:`load_cases` — read a case file (:class:`CaseFile`: questions, answers, contexts and
  what must happen).
* :func:`run_cases` — run them through a real guard (offline judge unless told otherwise).
* :func:`write_junit` — the results as JUnit XML for CI.
* ``pytest --guardrail-cases CASES.yaml`` — the same cases as pytest tests
  (:mod:`guardrail.policytest.pytest_plugin`).
"""

from __future__ import annotations

from guardrail.policytest.cases import Case, CaseFile, Expect, load_cases, policy_path
from guardrail.policytest.junit import junit_xml, write_junit
from guardrail.policytest.runner import CaseResult, check_expectation, run_cases

__all__ = [
    "Case",
    "CaseFile",
    "CaseResult",
    "Expect",
    "check_expectation",
    "junit_xml",
    "load_cases",
    "policy_path",
    "run_cases",
    "write_junit",
]
