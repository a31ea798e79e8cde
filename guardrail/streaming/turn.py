"""One streamed turn: release the answer as it arrives, check it, audit it once.

The topic (from the question and contexts) picks the rule, and the rule's ``stream`` setting
(:attr:`~guardrail.policy.schema.TopicRule.stream_mode`) picks how text is released:

``hold``
    Each sentence is released once it passed the per-sentence check
    (:mod:`guardrail.streaming.check`). The first sentence that fails is never released: the
    upstream is closed and the stream ends with the policy's action text (the escalation
    notice, or the abstention message).
``release``
    Chunks are released as they arrive; the whole answer is scored at the end and, when the
    decision flags it, a correction notice (and the action text) is appended.
``buffer``
    Nothing is released until the whole answer is scored; then the final text comes at once,
    exactly as :meth:`Guard.check <guardrail.guard.Guard.check>` would return it.

Whatever happens, the turn gets one audit record and at most one escalation, as for
``check``: the full MetaRAG score of everything the upstream produced is taken at the end —
also when the consumer stops reading half-way (the upstream is closed, the turn is finished in
a task of its own) — and an upstream that raises leaves a ``turn_failed`` record with the text
produced so far before the error reaches the consumer. Regeneration is not available: the
answer is already on its way to the user.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from guardrail.actions.table import user_language
from guardrail.logs import get_logger
from guardrail.models import (
    ActionName,
    Citation,
    Decision,
    GuardResult,
    ScoreReport,
    merge_spans,
)
from guardrail.policy.schema import StreamMode, TopicRule
from guardrail.streaming.check import SentenceVerdict, sentence_checker
from guardrail.streaming.chunks import close_source, text_chunks
from guardrail.streaming.sentences import SentenceSplitter
from guardrail.turn import Driver, Scored, Turn, TurnParts

__all__ = [
    "CORRECTION_NOTICE",
    "UNCHECKED_NOTICE",
    "AsyncGuardedStream",
    "StreamScheduler",
    "stream_driver",
]

#: Appended (with the action text, if any) when an answer already released is flagged.
CORRECTION_NOTICE = "Correction: parts of the answer above are not supported by the sources."
#: Appended when the answer already released could not be scored and the policy fails closed.
UNCHECKED_NOTICE = "Note: the answer above could not be checked against the sources."
_SEPARATOR = "\n\n"

#: Turns being finished after their consumer stopped reading (kept until their record is out).
_FINISHING: set[asyncio.Task[Any]] = set()
_log = get_logger(__name__)


class StreamScheduler(Protocol):
    """How a driver runs a stream's scoring steps — e.g. the proxy: within the serving core's
    work budget, on its fair lanes. Each method gets the text the step scores and the step;
    it awaits the step, or returns its own outcome without running it (a refusal the policy
    decides on: a ``Scored`` with an error, a verdict that holds the sentence)."""

    async def score(
        self, text: str, step: Callable[[], Coroutine[Any, Any, Scored]]
    ) -> Scored: ...  # pragma: no cover - a protocol

    async def check(
        self, text: str, step: Callable[[], Coroutine[Any, Any, SentenceVerdict]]
    ) -> SentenceVerdict: ...  # pragma: no cover - a protocol


def stream_driver(mode: StreamMode) -> Driver:
    """The driver of a stream in ``mode`` (its reasons say the answer was streamed)."""
    return Driver(f"stream:{mode}", "no regeneration: the answer was streamed")


@dataclass
class _Held:
    """The first held sentence that failed its check, and where it sits in the answer."""

    start: int
    end: int
    verdict: SentenceVerdict


@dataclass
class _Turn:
    turn: Turn
    mode: StreamMode
    produced: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    checked: int = 0  # characters of the answer that went through the sentence check
    held: _Held | None = None
    audited: bool = False

    @property
    def rule(self) -> TopicRule:
        return self.turn.rule

    @property
    def answer(self) -> str:
        return "".join(self.produced)

    @property
    def shown(self) -> str:
        return "".join(self.released)


class AsyncGuardedStream:
    """An async iterator of the text to show, guarded by the policy (see the module docstring).

    ``result`` is the turn's :class:`~guardrail.models.GuardResult` once the stream has ended
    (``None`` before, and when the upstream failed). Close it (``aclose()``, ``async with``)
    to stop early: the upstream is closed and the turn still recorded.
    """

    def __init__(
        self,
        parts: TurnParts,
        question: str,
        source: Any,
        contexts: Any = None,
        *,
        unscored: Callable[[], str | None] | None = None,
        deadline_s: float | None = None,
        notes: Callable[[], Sequence[str]] | None = None,
        scheduler: StreamScheduler | None = None,
    ) -> None:
        self._parts = parts
        self._scheduler = scheduler
        self.question = question
        self._source = source
        self._contexts = contexts
        #: Asked at the end: a reason not to score the turn (e.g. it ended in tool calls).
        self._unscored = unscored
        self._deadline_s = deadline_s
        self._notes = notes
        self.audit_id = uuid.uuid4().hex
        self.mode: StreamMode | None = None
        self.result: GuardResult | None = None
        self._started = False
        self._gen = self._run()

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        self._started = True
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        """Stop reading: close the upstream, finish and record the turn."""
        if not self._started:  # closed unread: the upstream may already be producing
            self._started = True
            await self._gen.aclose()
            await close_source(self._source)
            await self._record_unread("the stream was closed before it was read")
            return
        await self._gen.aclose()

    async def _record_unread(self, reason: str) -> None:
        """Record a turn whose answer nobody read (nothing was shown)."""
        stream = await asyncio.to_thread(self._start)
        self.result = await stream.turn.conclude_unscored("", "unread", reason, shown="")

    async def __aenter__(self) -> AsyncGuardedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the turn ---------------------------------------------------------------------------

    def _start(self) -> _Turn:
        turn = self._parts.open(
            self.question, self._contexts, audit_id=self.audit_id, deadline_s=self._deadline_s
        )
        self.mode = turn.rule.stream_mode
        return _Turn(turn, self.mode)

    async def _run(self) -> AsyncGenerator[str, None]:
        chunks = text_chunks(self._source)
        # The topic is classified (in a worker thread) while the upstream produces its first
        # chunk, so a released stream starts as soon as the upstream does.
        first = asyncio.ensure_future(_first_chunk(chunks))
        first.add_done_callback(_retrieve)
        try:
            turn = await asyncio.to_thread(self._start)
        except BaseException as exc:
            first.cancel()
            await self._close_upstream(chunks)
            if isinstance(exc, (GeneratorExit, asyncio.CancelledError)):
                reason = "the consumer stopped reading before the stream started"
                await _finish_detached(self._record_unread(reason))
            raise
        released = self._released(turn, _prepend(first, chunks))
        try:
            async for text in released:
                yield text
            await self._close_upstream(chunks)
            result = await self._finish(turn, note=None)
            trailer = result.answer[len(turn.shown) :]
            if trailer:
                yield trailer
        except (GeneratorExit, asyncio.CancelledError):
            first.cancel()
            await released.aclose()
            await self._close_upstream(chunks)
            if not turn.audited:
                await _finish_detached(
                    self._finish(turn, note="the consumer stopped reading the stream")
                )
            raise
        except Exception as exc:
            first.cancel()
            await released.aclose()
            await self._close_upstream(chunks)
            if not turn.audited:
                turn.audited = True
                await turn.turn.record_failure(turn.answer, exc)
            raise

    async def _close_upstream(self, chunks: AsyncGenerator[str, None]) -> None:
        await chunks.aclose()
        await close_source(self._source)

    async def _released(self, turn: _Turn, chunks: AsyncIterator[str]) -> AsyncGenerator[str, None]:
        """The text to show as the upstream produces it; stops at a failed held sentence."""
        splitter = SentenceSplitter()
        async for text in chunks:
            turn.produced.append(text)
            if turn.mode == "release":
                turn.released.append(text)
                yield text
            elif turn.mode == "hold":
                for sentence in splitter.feed(text):
                    if not await self._passes(turn, sentence):
                        return
                    yield sentence
        if turn.mode == "hold":
            rest = splitter.flush()
            if rest and await self._passes(turn, rest):
                yield rest

    async def _passes(self, turn: _Turn, sentence: str) -> bool:
        """Check one sentence; on success it counts as released."""
        checker = sentence_checker(self._parts.policy, self._parts.scorer)
        t = turn.turn

        def step() -> Coroutine[Any, Any, SentenceVerdict]:
            return checker.check(t.question, sentence, t.passages, turn.rule.threshold, t.calls)

        with t.deadline():
            if self._scheduler is None:
                verdict = await step()
            else:
                verdict = await self._scheduler.check(sentence, step)
        start = turn.checked
        turn.checked += len(sentence)
        if not verdict.ok:
            turn.held = _Held(start, start + len(sentence), verdict)
            return False
        turn.released.append(sentence)
        return True

    async def _finish(self, stream: _Turn, *, note: str | None) -> GuardResult:
        """Score the whole answer, decide, act (escalate at most once), record the turn."""
        stream.audited = True
        turn = stream.turn
        answer = stream.answer
        reason = self._unscored() if self._unscored is not None else None
        try:
            if reason is not None and stream.held is None and not answer.strip():
                result = await turn.conclude_unscored(
                    answer, "tool_calls", reason, shown=stream.shown
                )
                self.result = result
                return result
            turn.read_languages(answer)
            if self._scheduler is None:
                scored = await turn.score(answer)
            else:
                scored = await self._scheduler.score(answer, lambda: turn.score(answer))
            scored = Scored(
                _with_held(scored.report, stream.held, answer, stream.rule.threshold),
                scored.error,
            )
            driver = stream_driver(stream.mode)
            decision, regen_note = turn.decide_without_regeneration(scored, driver.no_regeneration)
            notes = [f"streamed ({stream.mode})", regen_note]
            if reason is not None:
                notes.append(f"{reason}; its text was scored")
            taken: list[ActionName] = []
            if stream.held is not None:
                held = stream.held
                why = held.verdict.error or f"scored {held.verdict.score:.2f}"
                notes.append(
                    f"held sentence at characters {held.start}-{held.end} not released "
                    f"(per-sentence check: {why})"
                )
                if not {"abstain", "escalate"} & set(decision.actions):
                    taken.append("abstain")
            if self._notes is not None:
                notes.extend(self._notes())
            if note:
                notes.append(note)
            acted = await turn.act(answer, decision, scored.report)
            decision = turn.final_decision(decision, acted, taken=taken, notes=notes)
            shown = self._shown(
                stream, decision, acted.final, acted.citations, stopped=note is not None
            )
            result = turn.result(
                shown=shown,
                original=answer,
                scored_answer=answer,
                decision=decision,
                report=scored.report,
                acted=acted,
            )
        except BaseException as exc:
            await turn.record_failure(answer, exc)
            raise
        await turn.record(result)
        self.result = result
        return result

    def _shown(
        self,
        turn: _Turn,
        decision: Decision,
        final: str,
        citations: list[Citation],
        *,
        stopped: bool,
    ) -> str:
        """Everything the user sees: the released text, then what the decision appends."""
        shown = turn.shown
        if stopped:
            return shown  # nobody reads the rest
        if turn.mode == "buffer":
            return final  # exactly what check() shows
        action = _action_text(turn.rule, decision)
        parts: list[str] = []
        if turn.held is not None:
            parts.append(action or turn.rule.abstain_message_in(user_language(decision)))
        elif decision.flagged:
            parts.append(" ".join(p for p in (CORRECTION_NOTICE, action) if p))
        elif action:
            parts.append(f"{UNCHECKED_NOTICE} {action}")
        if citations:
            parts.append(render_sources(citations, turn.turn.passages))
        if not parts:
            return shown
        return shown + (_SEPARATOR if shown.strip() else "") + _SEPARATOR.join(parts)


def _action_text(rule: TopicRule, decision: Decision) -> str:
    """The escalation notice or the abstention message the decision calls for ('' if none)."""
    if "escalate" in decision.actions and rule.on_flag.escalate is not None:
        return rule.on_flag.escalate.in_language(user_language(decision))
    if "abstain" in decision.actions:
        return rule.abstain_message_in(user_language(decision))
    return ""


def render_sources(citations: list[Citation], passages: list[str], width: int = 100) -> str:
    """The citation block appended to a streamed answer: each cited passage once, in order,
    and how many sentences no passage supports."""
    lines = ["Sources:"]
    seen: set[int] = set()
    for c in citations:
        if c.passage is not None and c.passage not in seen:
            seen.add(c.passage)
            text = " ".join(passages[c.passage].split())
            short = text if len(text) <= width else text[: width - 1] + "…"
            lines.append(f"{c.marker} {short}")
    unsupported = sum(1 for c in citations if c.passage is None)
    if unsupported:
        lines.append(f"{unsupported} sentence(s) not supported by any source.")
    return "\n".join(lines)


def _with_held(
    report: ScoreReport | None, held: _Held | None, answer: str, threshold: float
) -> ScoreReport | None:
    """The full report, flagged at the held sentence when its check failed on a score.

    MetaRAG's response score is the maximum over its parts, so a sentence that scored over the
    threshold on its own makes the answer's score at least that much.
    """
    if held is None or held.verdict.score is None:
        return report
    start, end = held.start, held.end
    while start < end and answer[start].isspace():
        start += 1
    while end > start and answer[end - 1].isspace():
        end -= 1
    score = max(held.verdict.score, report.score if report is not None else 0.0)
    if report is None:
        return ScoreReport(
            score=score, threshold=threshold, flagged=True, flagged_spans=[(start, end)]
        )
    if report.score >= threshold:
        return report
    spans = merge_spans([*report.flagged_spans, (start, end)])
    return report.model_copy(update={"score": score, "flagged": True, "flagged_spans": spans})


async def _first_chunk(chunks: AsyncGenerator[str, None]) -> str | None:
    try:
        return await chunks.__anext__()
    except StopAsyncIteration:
        return None


def _retrieve(task: asyncio.Future[str | None]) -> None:
    """Mark a first-chunk failure as seen: it is re-raised where the chunk is read, or was
    made moot by the consumer leaving."""
    if not task.cancelled():
        task.exception()


async def _prepend(
    first: asyncio.Future[str | None], rest: AsyncGenerator[str, None]
) -> AsyncGenerator[str, None]:
    text = await first
    if text is None:
        return
    yield text
    async for text in rest:
        yield text


async def _finish_detached(coro: Any) -> None:
    """Run ``coro`` (a turn's finish) as its own task, so cancelling the consumer's task does
    not cancel it; wait for it unless the wait itself is cancelled."""
    task = asyncio.ensure_future(coro)
    _FINISHING.add(task)
    task.add_done_callback(_FINISHING.discard)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        pass  # the turn finishes on its own; drain_finishing waits for it
    except Exception as exc:  # the turn's own record_failure has already run
        _log.error("finishing a stream's turn failed", error=repr(exc))


async def drain_finishing() -> None:
    """Wait until every turn being finished in the background on this loop is recorded."""
    loop = asyncio.get_running_loop()
    pending = [t for t in _FINISHING if t.get_loop() is loop]
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
