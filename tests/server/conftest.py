"""Fixtures for the service tests: a fake checker, a seeded queue, an app on a real socket."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from guardrail.exceptions import GuardrailError
from guardrail.models import GuardResult
from guardrail.queues import CaseResolution, SQLiteQueue
from guardrail.server import create_app
from guardrail.server.samples import sample_case
from guardrail.server.testing import serve_in_thread

API_KEY = "test-api-key-0123456789"
ALICE = "alice-token-abcdefghijklmnop"
BOB = "bob-token-abcdefghijklmnopqrs"


@dataclass
class FakeChecker:
    """Answers every check with the sample case's escalation, or raises ``error``."""

    error: GuardrailError | None = None
    seen: list[tuple[str, str, list[str]]] = field(default_factory=list)

    async def acheck(self, question: str, answer: str, contexts: list[str]) -> GuardResult:
        self.seen.append((question, answer, contexts))
        if self.error is not None:
            raise self.error
        case = sample_case()
        return GuardResult(
            audit_id=f"audit-{len(self.seen)}",
            policy=case.policy,
            question=question,
            answer="I can't answer that reliably; a specialist will follow up.",
            original_answer=answer,
            contexts=contexts,
            decision=case.decision,
            topics=case.topics,
            report=case.report,
        )


@pytest.fixture
def checker() -> FakeChecker:
    return FakeChecker()


@pytest.fixture
def failing_checker() -> type[FakeChecker]:
    """Build a checker that raises the given error: ``failing_checker(error=...)``."""
    return FakeChecker


@pytest.fixture
def api_key() -> str:
    return API_KEY


@pytest.fixture
def tokens() -> dict[str, str]:
    """Reviewer name -> token, as configured in the ``app`` fixture."""
    return {"alice": ALICE, "bob": BOB}


@pytest.fixture
def resolutions() -> list[CaseResolution]:
    return []


@pytest.fixture
def queue(tmp_path, resolutions) -> SQLiteQueue:
    q = SQLiteQueue(tmp_path / "review.sqlite3", on_resolve=resolutions.append)
    q.add(sample_case("case-1", queue="medical"))
    q.add(sample_case("case-2", queue="legal"))
    return q


@pytest.fixture
def app(checker, queue):
    return create_app(
        checker=checker,
        queue=queue,
        api_key=API_KEY,
        reviewer_tokens={ALICE: "alice", BOB: "bob"},
        session_secret="s" * 40,
    )


@pytest.fixture
def live(app) -> Iterator[str]:
    """The app served by uvicorn on 127.0.0.1:<free port>, stopped at teardown."""
    with serve_in_thread(app) as base_url:
        yield base_url
