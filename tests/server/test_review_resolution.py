"""The review page shows the statements an answer that leans on its question was read as."""

from __future__ import annotations

import httpx

from guardrail.models import ResolvedStatement
from guardrail.queues import SQLiteQueue
from guardrail.server import create_app
from guardrail.server.render import resolved_views
from guardrail.server.samples import sample_case
from guardrail.server.testing import serve_in_thread
from tests.server.test_review_http import login

STATEMENT = ResolvedStatement(
    text="Pregnant women can take ibuprofen.", spans=[(0, 3)], rule="yes_no"
)


def _case():
    case = sample_case("short")
    assert case.report is not None
    report = case.report.model_copy(update={"resolved": [STATEMENT]})
    return case.model_copy(update={"answer": "Yes.", "report": report})


def test_resolved_views_quote_the_answer_words() -> None:
    """Each view pairs the answer's words with the statement made of them."""
    case = _case()
    (view,) = resolved_views(case.answer, case.report)
    assert (view.words, view.text, view.rule) == ("Yes", STATEMENT.text, "yes_no")
    assert resolved_views(case.answer, None) == []


def test_case_page_lists_the_resolved_statements(tmp_path, checker) -> None:
    """The case page shows "Yes" -> the statement, under the answer."""
    queue = SQLiteQueue(tmp_path / "q.sqlite3")
    queue.add(_case())
    app = create_app(checker=checker, queue=queue, api_key=None, reviewer_tokens={"t" * 20: "eve"})
    with serve_in_thread(app) as base, httpx.Client(base_url=base) as client:
        login(client, "t" * 20)
        html = client.get("/review/cases/short").text
    assert "Read with the question" in html
    assert "<q>Yes</q> → Pregnant women can take ibuprofen." in html
