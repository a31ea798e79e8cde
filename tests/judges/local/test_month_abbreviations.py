"""An English month written short ("2 Feb", "19 Nov", "Sept") is its month to the word
matcher: "from 2 Feb" is supported by "on 2 February 2027", and "from 2 Mar" is not."""

from __future__ import annotations

from guardrail.judges.local import LocalJudge
from guardrail.scoring import MetaRAG
from tests.verifying import assert_told_apart


def test_a_short_month_is_its_month() -> None:
    assert_told_apart(
        "en",
        "Applications for the graduate scheme open on 3 February 2027 and close on 30 April 2027.",
        "You can apply for the graduate scheme from 3 Feb.",
        "You can apply for the graduate scheme from 3 Mar.",
    )


def test_a_short_month_in_a_deadline() -> None:
    assert_told_apart(
        "en",
        "The deadline to return the signed tenancy agreement is 19 November.",
        "The deadline to return the signed tenancy agreement is 19 Nov.",
        "The deadline to return the signed tenancy agreement is 19 Dec.",
    )


def test_a_short_reply_with_a_short_month_is_passed() -> None:
    """ "From 3 Feb." to "when can I start applying ..." is supported by "open on 3 February"."""
    report = MetaRAG(LocalJudge()).score_sync(
        "when can I start applying for the graduate scheme",
        "From 3 Feb.",
        [
            "Applications for the 2027 graduate scheme open on 3 February 2027 and close on "
            "30 April 2027."
        ],
    )
    assert report.score < 0.3
