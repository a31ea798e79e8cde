"""Screenshot the review page in headless Chromium: docs/review-page.png (case page) and
docs/review-queue.png (queue list).

    python scripts/screenshot_review.py [--out docs/review-page.png] [--chromium /usr/bin/chromium]

Needs the server and dev extras and Debian's chromium (scripts/ci_setup.sh installs it). It
serves a sample escalated case on 127.0.0.1, logs in with a throw-away reviewer token, claims
the case so the resolve form shows, and saves full-page PNGs.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from guardrail.models import Decision, GuardResult
from guardrail.queues import SQLiteQueue
from guardrail.server import create_app
from guardrail.server.samples import sample_case
from guardrail.server.testing import serve_in_thread

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


class PassChecker:
    """The screenshot only shows the review page; /v1/check passes every answer unchanged."""

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult:
        decision = Decision(action="pass", flagged=False, score=0.0, threshold=0.5, topic="x")
        return GuardResult(
            audit_id="shot", policy="screenshot", question=question, answer=answer,
            original_answer=answer, contexts=contexts, decision=decision,
        )  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "review-page.png")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        queue = SQLiteQueue(Path(tmp) / "review.sqlite3")
        case = sample_case("demo-0001")
        queue.add(case)
        queue.add(sample_case("demo-0002", queue="medical").model_copy(
            update={"question": "Is ibuprofen safe during pregnancy?",
                    "created_at": "2025-03-14T10:02:11+00:00"}))  # fmt: skip
        queue.add(sample_case("legal-0417", queue="legal").model_copy(
            update={"question": "Can my landlord keep the whole deposit for a stain?",
                    "created_at": "2025-03-14T11:40:05+00:00"}))  # fmt: skip
        token = secrets.token_urlsafe(24)
        app = create_app(
            checker=PassChecker(), queue=queue, api_key=None, reviewer_tokens={token: "alice"}
        )
        with serve_in_thread(app) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(f"{base}/review/login")
            page.fill("#token", token)
            page.click("button[type=submit]")
            page.wait_for_url(f"{base}/review")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out.with_name("review-queue.png")), full_page=True)
            page.click(f"text={case.case_id}")
            page.click("#claim")
            page.wait_for_selector("#approve")
            page.screenshot(path=str(args.out), full_page=True)
            browser.close()
    print(f"wrote {args.out} and {args.out.with_name('review-queue.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
