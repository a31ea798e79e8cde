"""The review page over real HTTP: login, sessions, CSRF, claim and resolve, escaping."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from guardrail.server import create_app
from guardrail.server.samples import sample_case
from guardrail.server.testing import serve_in_thread
from tests.server.conftest import API_KEY


def csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF field on the page"
    return match.group(1)


@pytest.fixture
def client(live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live, follow_redirects=False) as c:
        yield c


def login(client: httpx.Client, token: str) -> httpx.Response:
    page = client.get("/review/login")
    return client.post("/review/login", data={"token": token, "csrf_token": csrf(page.text)})


def test_pages_need_login(client):
    """Unauthenticated visits to the queue or a case redirect to the login page."""
    for path in ("/review", "/review/cases/case-1"):
        r = client.get(path)
        assert r.status_code == 303 and r.headers["location"] == "/review/login"


def test_bad_token_is_refused(client):
    """A wrong token gets 401 and the login form again with an error."""
    r = login(client, "not-a-real-token-at-all")
    assert r.status_code == 401 and "not valid" in r.text
    assert client.get("/review").status_code == 303


def test_login_sets_signed_httponly_strict_cookie(client, tokens):
    """A good token logs in; the session cookie is HttpOnly, SameSite=strict and signed."""
    r = login(client, tokens["alice"])
    assert r.status_code == 303 and r.headers["location"] == "/review"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert tokens["alice"] not in r.headers["set-cookie"]
    page = client.get("/review")
    assert page.status_code == 200 and "Signed in as <strong>alice</strong>" in page.text
    assert "case-1" in page.text and "case-2" in page.text
    # A tampered cookie is not a session.
    value = client.cookies["guardrail_review"]
    client.cookies.set("guardrail_review", value[:-4] + "AAAA")
    assert client.get("/review").status_code == 303


def test_login_without_csrf_is_forbidden(client, tokens):
    """The login form itself is CSRF-protected."""
    r = client.post("/review/login", data={"token": tokens["alice"]})
    assert r.status_code == 403


def test_claim_and_resolve_with_edit(client, tokens, queue, resolutions, live):
    """Alice claims a case and resolves it with an edited answer; queue and hook agree."""
    login(client, tokens["alice"])
    page = client.get("/review/cases/case-1")
    assert page.status_code == 200 and 'id="claim"' in page.text
    r = client.post("/review/cases/case-1/claim", data={"csrf_token": csrf(page.text)})
    assert r.status_code == 303 and r.headers["location"] == "/review/cases/case-1"
    page = client.get("/review/cases/case-1")
    assert 'id="approve"' in page.text and queue.get("case-1").reviewer == "alice"
    r = client.post(
        "/review/cases/case-1/resolve",
        data={"csrf_token": csrf(page.text), "outcome": "edit",
              "final_answer": "Adults: no more than 4 g in 24 hours.", "note": "fixed dose"},
    )  # fmt: skip
    assert r.status_code == 303 and r.headers["location"] == "/review"
    stored = queue.get("case-1")
    assert (stored.state, stored.outcome, stored.reviewer) == ("resolved", "edited", "alice")
    assert stored.final_answer == "Adults: no more than 4 g in 24 hours."
    assert [(x.case_id, x.outcome, x.note) for x in resolutions] == [
        ("case-1", "edited", "fixed dose")
    ]
    assert "Case case-1 edited." in client.get("/review").text  # flash message
    metrics = httpx.get(f"{live}/metrics", headers={"X-API-Key": API_KEY}).text
    assert 'guardrail_review_resolutions_total{outcome="edited",queue="medical"} 1.0' in metrics


def test_post_without_csrf_changes_nothing(client, tokens, queue):
    """A claim or resolve POST with a missing or wrong CSRF token is 403 and has no effect."""
    login(client, tokens["alice"])
    assert client.post("/review/cases/case-1/claim", data={}).status_code == 403
    r = client.post("/review/cases/case-1/claim", data={"csrf_token": "forged"})
    assert r.status_code == 403
    assert queue.get("case-1").state == "open"


def test_another_reviewer_cannot_take_over(live, tokens, queue):
    """Bob sees Alice's claim and his resolve attempt is refused with a message."""
    with httpx.Client(base_url=live) as alice, httpx.Client(base_url=live) as bob:
        login(alice, tokens["alice"])
        page = alice.get("/review/cases/case-2")
        alice.post("/review/cases/case-2/claim", data={"csrf_token": csrf(page.text)})
        login(bob, tokens["bob"])
        page = bob.get("/review/cases/case-2")
        assert "Claimed by <strong>alice</strong>" in page.text and 'id="approve"' not in page.text
        r = bob.post(
            "/review/cases/case-2/resolve",
            data={"csrf_token": csrf(page.text), "outcome": "approve"},
            follow_redirects=True,
        )
        assert "claimed by alice, not bob" in r.text
        r = bob.post(
            "/review/cases/case-2/claim", data={"csrf_token": csrf(page.text)},
            follow_redirects=True,
        )  # fmt: skip
        assert "already claimed by alice" in r.text
    assert queue.get("case-2").state == "claimed"


def test_unchanged_edit_and_unknown_outcome(client, tokens, queue):
    """Saving an unchanged 'edit' asks to approve instead; an unknown outcome is a 422."""
    login(client, tokens["alice"])
    page = client.get("/review/cases/case-1")
    token = csrf(page.text)
    client.post("/review/cases/case-1/claim", data={"csrf_token": token})
    answer = queue.get("case-1").case.answer
    r = client.post(
        "/review/cases/case-1/resolve",
        data={"csrf_token": token, "outcome": "edit", "final_answer": answer + "\r\n"},
        follow_redirects=True,
    )
    assert "unchanged: approve it instead" in r.text and queue.get("case-1").state == "claimed"
    r = client.post("/review/cases/case-1/resolve", data={"csrf_token": token, "outcome": "x"})
    assert r.status_code == 422


def test_case_page_shows_highlights_verdicts_and_evidence(client, tokens):
    """The case page colours flagged spans, lists verdicts and marks evidence sentences."""
    login(client, tokens["alice"])
    html = client.get("/review/cases/case-1").text
    assert 'class="seg s9 flagged"' in html  # factoid F1, score 0.92
    assert 'class="seg s0"' in html  # factoid F2, score 0.08, not flagged
    assert "anthropic:claude-haiku" in html and "The context says otherwise." in html
    evidence = r"<mark class=\"ev s9\"[^>]*>Do not take more than 4 g in 24 hours\.</mark>"
    cited = re.search(evidence, html)
    assert cited, "the cited evidence sentence should be marked"
    assert 'class="swatch s0"' in html and 'class="swatch s9"' in html  # the legend


def test_review_pages_carry_security_headers(client):
    """Review responses set a strict CSP, deny framing and are not cached."""
    r = client.get("/review/login")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY" and r.headers["cache-control"] == "no-store"


def test_case_content_is_escaped(tmp_path, checker, tokens):
    """A hostile question or passage is shown as text, never as markup."""
    from guardrail.queues import SQLiteQueue

    q = SQLiteQueue(tmp_path / "x.sqlite3")
    evil = sample_case("evil").model_copy(
        update={"question": "<script>alert(1)</script>", "contexts": ["<img src=x onerror=1>."]}
    )
    q.add(evil)
    app = create_app(checker=checker, queue=q, api_key=None, reviewer_tokens={"t" * 20: "eve"})
    with serve_in_thread(app) as base, httpx.Client(base_url=base) as c:
        login(c, "t" * 20)
        html = c.get("/review/cases/evil").text
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "<img src=x" not in html


def test_removed_token_ends_session(tmp_path, checker, queue, tokens):
    """A session whose token is no longer configured is logged out (same signing secret)."""
    secret = "k" * 40
    first = create_app(
        checker=checker, queue=queue, api_key=None,
        reviewer_tokens={tokens["alice"]: "alice"}, session_secret=secret,
    )  # fmt: skip
    with serve_in_thread(first) as base, httpx.Client(base_url=base) as c:
        login(c, tokens["alice"])
        cookie = c.cookies["guardrail_review"]
    second = create_app(
        checker=checker, queue=queue, api_key=None,
        reviewer_tokens={tokens["bob"]: "bob"}, session_secret=secret,
    )  # fmt: skip
    with serve_in_thread(second) as base, httpx.Client(base_url=base) as c:
        c.cookies.set("guardrail_review", cookie)
        r = c.get("/review", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/review/login"


def test_unknown_case_is_404(client, tokens):
    """A case id that does not exist gives 404."""
    login(client, tokens["alice"])
    assert client.get("/review/cases/nope").status_code == 404


def test_case_page_shows_the_turns_languages(client, tokens, queue):
    """The case page says which languages the question, the answer and the passages are in,
    and marks a turn the judge could not verify in them."""
    from guardrail.models import TurnLanguages

    case = sample_case("case-pl", queue="medical")
    languages = TurnLanguages(
        question="de", answer="pl", contexts=["de", "en"], judge_languages=["en"], verifiable=False
    )
    queue.add(case.model_copy(update={"decision": case.decision.model_copy(
        update={"languages": languages})}))  # fmt: skip
    login(client, tokens["alice"])
    html = client.get("/review/cases/case-pl").text
    assert "question <strong>de</strong> · answer <strong>pl</strong>" in html
    assert "passages <strong>de, en</strong>" in html and "not verified" in html
    plain = client.get("/review/cases/case-1").text
    assert 'class="languages"' not in plain
