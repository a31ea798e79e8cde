"""``guardrail report``: what the guard did, read back from its audit trail and review queue.

* :func:`build_report` — the figures, as one JSON-ready mapping (``--json``).
* :func:`render_html` — the same figures as one self-contained HTML page with inline SVG.
* :func:`write_history` — a generated audit log and review history with a known truth,
  written through the real writers (tests, demos, ``benchmarks/report.py``).
"""

from __future__ import annotations

from guardrail.report.build import build_report
from guardrail.report.html import render_html
from guardrail.report.sample import HistoryTruth, write_history

__all__ = ["HistoryTruth", "build_report", "render_html", "write_history"]
