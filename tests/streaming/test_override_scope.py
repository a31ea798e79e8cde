"""``Guard.override`` is scoped to its block and reaches every part of the turns it starts,
the held stream's sentence checks included."""

from __future__ import annotations

import threading

from guardrail.guard import Guard
from guardrail.models import Label
from guardrail.testing import TestJudge
from tests.streaming.conftest import PREGNANCY_CTX, PREGNANCY_Q, SAFE, words


def _no(statement: str, context: str) -> Label:
    return Label.NO


def _held(guard: Guard) -> str:
    """What a held stream of a faithful answer shows (the pregnancy topic holds)."""
    stream = guard.stream(PREGNANCY_Q, iter(words(SAFE)), PREGNANCY_CTX)
    shown = "".join(stream)
    assert stream.mode == "hold"
    return shown


def test_a_held_stream_checks_sentences_with_the_override_and_only_inside_it(guard: Guard):
    """Before the block the faithful sentence is released; inside an override whose judge
    says NO to everything it is held; after the block it is released again."""
    assert _held(guard).startswith(SAFE.strip())
    with guard.override(judge=TestJudge(_no)):
        inside = _held(guard)
    assert not inside.startswith(SAFE.strip())
    assert "clinician" in inside  # the escalation notice replaces the held sentence
    assert _held(guard).startswith(SAFE.strip())


def test_an_override_does_not_reach_other_threads(guard: Guard):
    """A check in another thread while the block is open uses the guard's own scorer."""
    seen: list[float | None] = []

    def other() -> None:
        seen.append(guard.check(PREGNANCY_Q, SAFE, PREGNANCY_CTX).decision.score)

    with guard.override(judge=TestJudge(_no)):
        flagged = guard.check(PREGNANCY_Q, SAFE, PREGNANCY_CTX).decision
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(60)
    assert flagged.flagged and flagged.score == 1.0
    assert seen and seen[0] is not None and seen[0] < 0.3
