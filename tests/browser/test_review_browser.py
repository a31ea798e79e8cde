"""The review page in headless Chromium: log in, claim, resolve — as a reviewer would.

Skips with the reason when Chromium or Playwright is missing, except under CI=true, where a
missing browser FAILS (scripts/ci_setup.sh installs Debian's chromium).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from guardrail.models import Decision, GuardResult
from guardrail.queues import CaseResolution, SQLiteQueue
from guardrail.server import create_app
from guardrail.server.samples import sample_case
from guardrail.server.testing import serve_in_thread
from tests.needs import unavailable

pytestmark = pytest.mark.browser

TOKEN = "reviewer-token-for-browser-tests"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _chromium() -> str | None:
    """GUARDRAIL_CHROMIUM when set (and only it), else Debian's chromium, else PATH."""
    override = os.environ.get("GUARDRAIL_CHROMIUM")
    if override is not None:
        return override if Path(override).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


class PassChecker:
    """Browser tests exercise the review page only; /v1/check passes answers through."""

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult:
        d = Decision(action="pass", flagged=False, score=0.0, threshold=0.5, topic="general")
        return GuardResult(audit_id="b", policy="p", question=question, answer=answer,
                           original_answer=answer, contexts=contexts, decision=d)  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module, driven by Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("browser", "the playwright package is not installed (pip install '.[dev]')")
    path = _chromium()
    if path is None:
        unavailable(
            "browser", "no Chromium found (apt-get install chromium, or set GUARDRAIL_CHROMIUM)"
        )
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, SQLiteQueue, list[CaseResolution]]]:
    resolutions: list[CaseResolution] = []
    queue = SQLiteQueue(tmp_path / "review.sqlite3", on_resolve=resolutions.append)
    queue.add(sample_case("case-7", queue="medical"))
    queue.add(sample_case("case-8", queue="legal"))
    app = create_app(checker=PassChecker(), queue=queue, api_key=None,
                     reviewer_tokens={TOKEN: "dana"})  # fmt: skip
    with serve_in_thread(app) as base:
        yield base, queue, resolutions


@pytest.fixture
def page(browser) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


def _login(page: Any, base: str, token: str) -> None:
    page.goto(f"{base}/review")
    assert page.url == f"{base}/review/login"
    page.fill("#token", token)
    page.click("button[type=submit]")


def test_wrong_token_shows_an_error(page, site):
    """A mistyped token keeps the reviewer on the login page with a readable message."""
    base, _, _ = site
    _login(page, base, "definitely-not-the-token")
    assert page.url == f"{base}/review/login"
    assert "not valid" in page.inner_text("[role=alert]")


def test_login_claim_and_edit(page, site):
    """Dana logs in, opens a case, claims it, edits the answer and saves it."""
    base, queue, resolutions = site
    _login(page, base, TOKEN)
    page.wait_for_url(f"{base}/review")
    assert "Signed in as dana" in page.inner_text("header")
    page.click("text=case-7")
    page.wait_for_url(f"{base}/review/cases/case-7")
    # The flagged span is visibly coloured: the stylesheet loaded under the strict CSP.
    flagged = page.locator("#answer .seg.flagged").first
    bg = flagged.evaluate("el => getComputedStyle(el).backgroundColor")
    assert bg not in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.locator("mark.ev").count() >= 2
    page.click("#claim")
    page.wait_for_selector("#approve")
    assert queue.get("case-7").state == "claimed"
    page.fill("#final_answer", "Adults should not take more than 4 g in 24 hours. "
                               "Avoid alcohol: it raises the risk of liver damage.")  # fmt: skip
    page.fill("#note", "fixed dose and alcohol advice")
    page.click("#edit")
    page.wait_for_url(f"{base}/review")
    assert "Case case-7 edited." in page.inner_text("[role=status]")
    stored = queue.get("case-7")
    assert (stored.state, stored.outcome, stored.reviewer) == ("resolved", "edited", "dana")
    assert stored.final_answer is not None and stored.final_answer.startswith("Adults should not")
    assert [r.case_id for r in resolutions] == ["case-7"]
    assert page.errors == []  # type: ignore[attr-defined]


def test_claim_then_reject_then_view_resolution(page, site):
    """Rejecting a claimed case closes it; its page then shows the outcome, not the buttons."""
    base, queue, _ = site
    _login(page, base, TOKEN)
    page.goto(f"{base}/review/cases/case-8")
    page.click("#claim")
    page.click("#reject")
    page.wait_for_url(f"{base}/review")
    assert page.locator("a.case-link", has_text="case-7").count() == 1
    assert page.locator("a.case-link", has_text="case-8").count() == 0  # no longer open
    page.goto(f"{base}/review/cases/case-8")
    assert "Resolved: rejected by dana" in page.inner_text("#actions")
    assert page.locator("#approve").count() == 0
    assert queue.get("case-8").outcome == "rejected"
    page.click("text=Log out")
    page.wait_for_url(f"{base}/review/login")
    assert page.errors == []  # type: ignore[attr-defined]
