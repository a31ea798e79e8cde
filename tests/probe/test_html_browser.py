"""The HTML report in headless Chromium: a hostile reply is shown as text, never run, and the
conflicting parts are marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail.cli import main
from tests.needs import unavailable

pytestmark = pytest.mark.browser
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "probe" / "healthcare.yaml"
HOSTILE = "<script>window.pwned = 1</script><img src=x onerror='window.pwned = 2'>"


def test_a_reviewer_sees_the_hostile_reply_as_text(tmp_path):
    try:
        from playwright.sync_api import sync_playwright

        from tests.browser.test_review_browser import CHROMIUM_ARGS, _chromium
    except ImportError as exc:
        unavailable("browser", f"playwright or the server extra is missing ({exc})")
    path = _chromium()
    if path is None:
        unavailable("browser", "no Chromium found (apt-get install chromium)")
    bot = tmp_path / "bot.py"
    bot.write_text(
        "def answer(question):\n"
        f"    return 'No. ' + {HOSTILE!r} + '\\n1. Ibuprofen is safe in the third trimester.'\n"
    )
    report = tmp_path / "probe.html"
    args = ["probe", str(EXAMPLE), "--chatbot", f"{bot}:answer", "--limit", "3"]
    assert main([*args, "--html-out", str(report)]) == 1
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(report.as_uri())
        assert page.evaluate("window.pwned") is None
        assert page.locator("img").count() == 0
        first = page.locator("section.case").first
        assert HOSTILE in first.locator("pre").first.inner_text()
        marked = first.locator("mark").all_inner_texts()
        assert "No" in marked
        assert "Ibuprofen is safe in the third trimester." in marked
        browser.close()
