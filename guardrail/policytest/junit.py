"""Write policy test results as JUnit XML, the format CI systems read (Jenkins, GitLab,
GitHub Actions reporters, Azure Pipelines).

One ``<testsuite>`` per case file inside ``<testsuites>``; one ``<testcase>`` per case with
``classname`` = the policy's name, so a CI page groups results by policy. An unmet
expectation is a ``<failure>`` (one line per expectation), a case that raised is an
``<error>``. The observed decision goes to ``<system-out>`` so a reader sees what did happen.
"""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from guardrail.policytest.runner import CaseResult

__all__ = ["junit_xml", "write_junit"]


def junit_xml(
    results: Sequence[CaseResult], *, suite: str, policy: str, judge: str
) -> ET.ElementTree[ET.Element]:
    """The results as a JUnit XML tree."""
    failures = sum(1 for r in results if r.failures and r.error is None)
    errors = sum(1 for r in results if r.error is not None)
    seconds = sum(r.seconds for r in results)
    root = ET.Element(
        "testsuites",
        name="guardrail test",
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        time=f"{seconds:.3f}",
    )
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{seconds:.3f}",
        timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        hostname=socket.gethostname(),
    )
    props = ET.SubElement(ts, "properties")
    ET.SubElement(props, "property", name="policy", value=policy)
    ET.SubElement(props, "property", name="judge", value=judge)
    for r in results:
        tc = ET.SubElement(ts, "testcase", classname=policy, name=r.name, time=f"{r.seconds:.3f}")
        if r.error is not None:
            el = ET.SubElement(tc, "error", message=r.error, type="CaseError")
            el.text = r.error
        elif r.failures:
            el = ET.SubElement(tc, "failure", message=r.failures[0], type="ExpectationFailed")
            el.text = "\n".join(r.failures)
        if r.observed:
            ET.SubElement(tc, "system-out").text = json.dumps(r.observed, ensure_ascii=False)
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(
    path: str | Path, results: Sequence[CaseResult], *, suite: str, policy: str, judge: str
) -> None:
    """Write the results to ``path`` as UTF-8 JUnit XML (folders created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    junit_xml(results, suite=suite, policy=policy, judge=judge).write(
        out, encoding="utf-8", xml_declaration=True
    )
