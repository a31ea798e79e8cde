"""The case page tells the reviewer what their verdict will be used for."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.server.test_review_http import csrf, login


@pytest.fixture
def client(live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live, follow_redirects=False) as c:
        yield c


def test_claimed_case_explains_the_label(client, tokens, queue) -> None:
    """Once claimed, the page says which label each button gives, for which topic and
    threshold, and that calibrate --from-reviews and the report use it."""
    login(client, tokens["alice"])
    page = client.get("/review/cases/case-1")
    assert 'id="verdict-use"' not in page.text  # not before the case is the reviewer's
    client.post("/review/cases/case-1/claim", data={"csrf_token": csrf(page.text)})
    text = " ".join(client.get("/review/cases/case-1").text.split())
    d = queue.get("case-1").case.decision
    assert 'id="verdict-use"' in text
    assert f"label for topic <strong>{d.topic}</strong>" in text
    assert f"threshold (now {d.threshold:.2f})" in text
    assert "guardrail calibrate --from-reviews" in text
