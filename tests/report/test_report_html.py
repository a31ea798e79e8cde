"""The HTML page: self-contained, escaped, one chart per figure it promises."""

from __future__ import annotations

import re

from guardrail.report import build_report, render_html
from guardrail.report.svg import hbars, histogram
from tests.report.conftest import History


def test_page_fetches_nothing(history: History) -> None:
    """No script, stylesheet link, image or URL of any kind: the file opens offline."""
    page = render_html(build_report(history.audit, review_db=history.db))
    assert "<script" not in page.lower()
    assert "<link" not in page.lower() and "<img" not in page.lower()
    assert not re.search(r"(https?:|//[a-z]|url\()", page, re.I)


def test_page_draws_every_chart(history: History) -> None:
    """Per topic a decisions chart and a score histogram with its threshold, plus the lists."""
    report = build_report(history.audit, review_db=history.db)
    page = render_html(report)
    audit = report["audit"]
    topics, judge = audit["topics"], audit["judge"]
    overturns = [
        g for g in report["reviews"]["by_topic"].values() if g["overturn_rate"] is not None
    ]
    lists = [audit["top_flagged_factoids"], audit["top_flagged_spans"], judge["latency_s"],
             judge["failures_by_cause"], judge["unusable_by_cause"], audit["languages"],
             judge["parse_fallbacks_by_cause"], overturns]  # fmt: skip
    assert page.count('<svg class="chart"') == 2 * len(topics) + sum(1 for x in lists if x)
    assert page.count('class="threshold"') == len(topics)
    for name in topics:
        assert f"Score distribution, topic {name}" in page


def test_log_text_is_escaped() -> None:
    """A factoid holding markup is shown as text, never interpreted."""
    svg = hbars("t", [("<script>alert(1)</script>", 3.0)])
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_threshold_line_sits_at_its_value() -> None:
    """The dashed threshold line is drawn at the threshold's x position on the score axis."""
    svg = histogram("h", [1] * 50, 0.5, width=340)
    x = float(re.search(r'class="threshold" x1="([\d.]+)"', svg).group(1))
    assert x == 40 + (340 - 40 - 8) * 0.5
    assert svg.count('fill="#c0504d"') == 25  # the bins at or above 0.5 are drawn red


def test_missing_review_db_is_said_not_hidden(history: History) -> None:
    """Without --db the review section says where waiting times would come from."""
    page = render_html(build_report(history.audit))
    assert "No review database given" in page
    assert "Hash chain not verified" in page
