"""Guard.stream / astream / wrap on streamed answers: what is released, when, and the record."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from guardrail.exceptions import ConfigError
from guardrail.guard import Guard
from guardrail.queues import SQLiteQueue
from guardrail.streaming import CORRECTION_NOTICE
from tests.streaming.conftest import (
    AFTER,
    GENERAL_CTX,
    GENERAL_Q,
    PREGNANCY_CTX,
    PREGNANCY_Q,
    SAFE,
    UNSAFE,
    records,
    words,
)


class Upstream:
    """A sync generator of chunks that notes how far it got and whether it was closed."""

    def __init__(self, text: str, *, fail_after: int | None = None) -> None:
        self.chunks = words(text)
        self.sent = 0
        self.closed = False
        self.fail_after = fail_after

    def __iter__(self) -> Iterator[str]:
        try:
            for chunk in self.chunks:
                if self.fail_after is not None and self.sent >= self.fail_after:
                    raise ConnectionError("upstream went away")
                self.sent += 1
                yield chunk
        finally:
            self.closed = True


def turns(path: Path) -> list[dict]:
    return [r for r in records(path) if r["kind"] == "turn" or r.get("event_name")]


def test_hold_never_releases_the_failing_sentence(guard: Guard, audit_path, queue: SQLiteQueue):
    """A sensitive topic holds: the safe sentence comes out, the unsafe one never does, the
    stream ends with the escalation notice, the upstream is closed; one record, one case."""
    upstream = Upstream(SAFE + UNSAFE + AFTER)
    gen = iter(upstream)
    stream = guard.stream(PREGNANCY_Q, gen, PREGNANCY_CTX)
    pieces = list(stream)
    shown = "".join(pieces)
    assert stream.mode == "hold"
    assert pieces[0] == SAFE
    assert "Ibuprofen is completely safe" not in shown and "as much" not in shown
    assert "A clinician will check this." in shown
    assert upstream.closed and upstream.sent < len(upstream.chunks)
    result = stream.result
    assert result is not None and result.decision.action == "escalate"
    assert result.answer == shown and "held sentence" in result.decision.reason
    (record,) = turns(audit_path)
    assert record["audit_id"] == result.audit_id and record["final_answer"] == shown
    assert [c.case_id for c in queue.list()] == [result.audit_id]


def test_hold_releases_each_sentence_before_the_next_one_is_produced(guard: Guard, audit_path):
    """Checked sentences come out as soon as they are complete, not at the end."""
    upstream = Upstream(SAFE + SAFE + SAFE)
    seen_when: list[int] = []
    stream = guard.stream(PREGNANCY_Q, iter(upstream), PREGNANCY_CTX)
    for _ in stream:
        seen_when.append(upstream.sent)
    per_sentence = len(words(SAFE))
    assert seen_when[:3] == [per_sentence, 2 * per_sentence, 3 * per_sentence]
    assert stream.result is not None and stream.result.decision.action == "pass"
    assert len(turns(audit_path)) == 1


def test_release_passes_chunks_through_and_appends_a_correction(guard: Guard, audit_path):
    """Release mode: every chunk as it came; a flagged answer gets the correction notice."""
    answer = "The Eiffel Tower was completed in 1889. It was painted green by Napoleon in 1750."
    stream = guard.stream(GENERAL_Q, iter(words(answer)), GENERAL_CTX)
    pieces = list(stream)
    assert stream.mode == "release"
    assert pieces[: len(words(answer))] == words(answer)
    result = stream.result
    assert result is not None and result.decision.flagged
    assert pieces[-1].strip().startswith(CORRECTION_NOTICE)
    assert len(turns(audit_path)) == 1


def test_release_of_a_supported_answer_adds_nothing(guard: Guard, audit_path):
    """A passing answer in release mode is exactly the upstream's text."""
    answer = "The Eiffel Tower was completed in 1889."
    stream = guard.stream(GENERAL_Q, iter(words(answer)), GENERAL_CTX)
    assert "".join(stream) == answer
    assert stream.result is not None and stream.result.decision.action == "pass"


def test_buffer_shows_what_check_shows(guard: Guard, audit_path):
    """A buffer topic releases nothing until the end, then exactly check()'s answer."""
    question = "How much tax do I pay on my bonus?"
    answer = "You pay no tax at all on a bonus. Bonuses are always tax free."
    context = ["Bonuses are taxed as ordinary income at your marginal rate."]
    stream = guard.stream(question, iter(words(answer)), context)
    pieces = list(stream)
    checked = guard.check(question, answer, context)
    assert stream.mode == "buffer" and len(pieces) == 1
    assert pieces[0] == checked.answer == "Please ask a tax adviser."


def test_consumer_stopping_half_way_still_records_one_turn(guard: Guard, audit_path):
    """close() after the first sentence: the upstream is closed, one complete record."""
    upstream = Upstream(SAFE + SAFE + SAFE)
    stream = guard.stream(PREGNANCY_Q, iter(upstream), PREGNANCY_CTX)
    first = next(stream)
    stream.close()
    assert upstream.closed
    (record,) = turns(audit_path)
    assert record["kind"] == "turn" and record["final_answer"] == first
    assert "stopped reading" in record["decision"]["reason"]
    assert record["answer"].startswith(SAFE)


async def test_cancelled_consumer_task_still_records_one_turn(guard: Guard, audit_path):
    """An async consumer cancelled mid-stream: the turn is finished and recorded anyway."""
    got_one = asyncio.Event()

    async def slow_chunks() -> AsyncIterator[str]:
        for chunk in words(SAFE + SAFE + SAFE):
            await asyncio.sleep(0.01)
            yield chunk

    async def consume() -> None:
        async for _ in guard.astream(PREGNANCY_Q, slow_chunks(), PREGNANCY_CTX):
            got_one.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_one.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    from guardrail.streaming.turn import drain_finishing

    await drain_finishing()
    (record,) = turns(audit_path)
    assert record["kind"] == "turn" and "stopped reading" in record["decision"]["reason"]


def test_upstream_failure_is_raised_and_recorded(guard: Guard, audit_path):
    """The upstream raising mid-answer: the error reaches the caller after a turn_failed
    record holding what was produced."""
    upstream = Upstream(SAFE + UNSAFE, fail_after=4)
    stream = guard.stream(GENERAL_Q, iter(upstream), GENERAL_CTX)
    with pytest.raises(ConnectionError):
        list(stream)
    (record,) = records(audit_path)
    assert record["event_name"] == "turn_failed" and "upstream went away" in record["error"]
    assert record["answer"] == "".join(words(SAFE)[:4])


def test_wrap_streams_generator_functions(guard: Guard, audit_path):
    """wrap: a function returning (chunks, contexts) and a generator function both stream."""

    @guard.wrap
    def answer(question: str) -> tuple[Iterator[str], list[str]]:
        return iter(words(SAFE + UNSAFE)), PREGNANCY_CTX

    shown = "".join(answer(PREGNANCY_Q))
    assert shown.startswith(SAFE) and "Ibuprofen is completely" not in shown

    @guard.wrap
    def bare(question: str) -> Iterator[str]:
        yield from words("The Eiffel Tower was completed in 1889.")

    assert "".join(bare(GENERAL_Q)).startswith("The Eiffel Tower was completed in 1889.")
    assert len(turns(audit_path)) == 2


async def test_wrap_async_generator_function(guard: Guard, audit_path):
    """An async generator function gives an async guarded stream; with no contexts to check
    against, a held sentence is not supported and is not released."""

    @guard.wrap
    async def answer(question: str) -> AsyncIterator[str]:
        for chunk in words(SAFE + AFTER):
            yield chunk

    pieces = [p async for p in answer(PREGNANCY_Q)]
    assert not any("Paracetamol" in p for p in pieces)
    assert pieces[-1].startswith("A clinician will check this.")
    general = [p async for p in answer(GENERAL_Q)]
    assert general[: len(words(SAFE + AFTER))] == words(SAFE + AFTER)  # release mode
    assert len(turns(audit_path)) == 2


def test_bad_chunks_are_a_clear_error_and_recorded(guard: Guard, audit_path):
    """A stream of numbers is a ConfigError naming the type; the turn is still recorded."""
    with pytest.raises(ConfigError, match="yielded a int"):
        list(guard.stream(GENERAL_Q, iter([1, 2]), GENERAL_CTX))
    assert len(records(audit_path)) == 1


def test_non_sensitive_topic_defaults_to_release_and_sensitive_to_hold(guard: Guard):
    """The stream setting's default follows the topic's sensitivity."""
    assert guard.policy.topic("general").stream_mode == "release"
    assert guard.policy.topic("pregnancy").stream_mode == "hold"
    assert guard.policy.topic("tax").stream_mode == "buffer"


def test_a_stream_closed_unread_is_recorded_and_its_upstream_closed(guard: Guard, audit_path):
    """Closing a guarded stream before reading it closes the upstream and records the turn
    (the model may already have been asked)."""
    upstream = Upstream(SAFE)
    gen = iter(upstream)
    next(gen)  # the upstream started producing
    stream = guard.stream(PREGNANCY_Q, gen, PREGNANCY_CTX)
    stream.close()
    assert upstream.closed
    (record,) = records(audit_path)
    assert record["kind"] == "turn" and "closed before it was read" in record["decision"]["reason"]
    assert record["final_answer"] == ""


@pytest.mark.parametrize("ticks", [1, 2, 5])
async def test_cancelled_at_any_early_moment_records_one_turn(guard: Guard, audit_path, ticks):
    """A consumer cancelled while the turn is still starting: exactly one record anyway."""

    async def never_ending() -> AsyncIterator[str]:
        yield SAFE
        await asyncio.sleep(3600)
        yield AFTER

    async def consume() -> None:
        async for _ in guard.astream(PREGNANCY_Q, never_ending(), PREGNANCY_CTX):
            pass

    task = asyncio.create_task(consume())
    for _ in range(ticks):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    from guardrail.streaming.turn import drain_finishing

    for _ in range(100):  # the record is written by a task of its own
        await drain_finishing()
        if records(audit_path):
            break
        await asyncio.sleep(0.02)
    (record,) = records(audit_path)
    assert record["kind"] == "turn"
