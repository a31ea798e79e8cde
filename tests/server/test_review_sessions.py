"""Logging out ends a review session on the server: a cookie copied before logout is dead."""

from __future__ import annotations

import httpx

from tests.server.test_review_http import csrf, login


def test_a_cookie_captured_before_logout_no_longer_works(live, tokens):
    with httpx.Client(base_url=live, follow_redirects=False) as alice:
        assert login(alice, tokens["alice"]).status_code == 303
        captured = alice.cookies["guardrail_review"]
        page = alice.get("/review")
        assert page.status_code == 200
        assert alice.post("/review/logout", data={"csrf_token": csrf(page.text)}).status_code == 303
    with httpx.Client(base_url=live, follow_redirects=False) as thief:
        thief.cookies.set("guardrail_review", captured)
        r = thief.get("/review")
        assert r.status_code == 303 and r.headers["location"] == "/review/login"


def test_other_sessions_of_the_same_reviewer_stay_open(live, tokens):
    """Logging out on one device does not end the reviewer's session on another."""
    with (
        httpx.Client(base_url=live, follow_redirects=False) as laptop,
        httpx.Client(base_url=live, follow_redirects=False) as phone,
    ):
        login(laptop, tokens["alice"])
        login(phone, tokens["alice"])
        page = laptop.get("/review")
        laptop.post("/review/logout", data={"csrf_token": csrf(page.text)})
        assert laptop.get("/review").status_code == 303
        assert phone.get("/review").status_code == 200
