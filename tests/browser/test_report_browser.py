"""The report page in headless Chromium: every chart is drawn, with bars, at a real size.

Skips with the reason when Chromium or Playwright is missing, except under CI=true, where a
missing browser FAILS (scripts/ci_setup.sh installs Debian's chromium).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from guardrail.report import build_report, render_html
from tests.browser.test_review_browser import CHROMIUM_ARGS, _chromium
from tests.needs import unavailable
from tests.report.conftest import make_history

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The report of a generated history, opened in Chromium with the network blocked."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("browser", "the playwright package is not installed (pip install '.[dev]')")
    path = _chromium()
    if path is None:
        unavailable(
            "browser", "no Chromium found (apt-get install chromium, or set GUARDRAIL_CHROMIUM)"
        )
    folder = tmp_path_factory.mktemp("report")
    h = make_history(folder, turns=400)
    html = folder / "report.html"
    html.write_text(render_html(build_report(h.audit, review_db=h.db)), encoding="utf-8")
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1100, "height": 900})
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto(html.as_uri())
        pg.requests = requests
        yield pg
        shots = os.environ.get("GUARDRAIL_REPORT_SCREENSHOT")
        if shots:
            pg.screenshot(path=shots, full_page=True)
        browser.close()


def test_every_chart_is_drawn(page: Any) -> None:
    """Each inline SVG chart lays out with a non-zero size and holds drawn bars."""
    charts = page.evaluate(
        """() => Array.from(document.querySelectorAll('svg.chart')).map(s => {
             const b = s.getBoundingClientRect();
             const bars = Array.from(s.querySelectorAll('rect'))
               .filter(r => r.getBoundingClientRect().height > 0);
             return {w: b.width, h: b.height, bars: bars.length,
                     title: s.querySelector('title').textContent};
           })"""
    )
    assert len(charts) >= 15
    for chart in charts:
        assert chart["w"] > 100 and chart["h"] > 20, chart["title"]
        assert chart["bars"] >= 1, chart["title"]


def test_page_loads_nothing_but_itself(page: Any) -> None:
    """The browser requested only the report file: no script, font or image from anywhere."""
    assert len(page.requests) == 1 and page.requests[0].startswith("file://")


def test_threshold_lines_are_visible(page: Any, tmp_path: Path) -> None:
    """One dashed threshold line per topic histogram is laid out inside its chart."""
    heights = page.evaluate(
        "() => Array.from(document.querySelectorAll('line.threshold'))"
        ".map(l => l.getBoundingClientRect().height)"
    )
    assert len(heights) == 5 and all(h > 50 for h in heights)
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "report.png").stat().st_size > 10_000
