"""One proxied chat completion, guarded: the non-streamed reply, or the SSE stream.

Both run on the proxy's scoring loop (see :mod:`guardrail.proxy.relay`). Every request that
reaches the upstream leaves one audit record per answer: a scored turn, a turn recorded
unscored (it ended in tool calls), or ``turn_failed`` when the upstream failed.

What the client gets back is the upstream's reply with the guard's changes only:

* a choice's ``message.content`` (non-streamed) or the content deltas (streamed) become the
  text the policy lets through; when the guard changed the text, that choice's ``logprobs``
  are dropped (they spell out the withheld tokens), and a streamed turn keeps them only in
  ``release`` mode, where every chunk is shown as it came;
* a ``guardrail`` field — ``audit_id``, ``decision``, ``flagged``, ``score``, ``threshold``,
  ``topic``, ``reason`` — on the reply (with ``choices``, one per choice, when ``n`` > 1) or
  on the last chunk of the stream, and the same for the first choice in ``x-guardrail-*``
  headers (a stream's headers carry only the audit id: the decision is not known yet);
  a non-streamed reply's ``Server-Timing`` header splits its time into ``upstream`` and
  ``guard``.

Tool calls, role deltas, usage and unknown fields pass through as sent (a streamed role or
tool-call chunk with no text is forwarded as it came). Text the client may display is checked
or withheld: a refusal is guarded like content (scored, and replaced by what the policy lets
through), hidden reasoning (``reasoning_content``, ``reasoning``) is withheld, text beside tool
calls is scored, and only the first choice of a stream is relayed.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Sequence,
)
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, TypeVar

from guardrail.logs import get_logger
from guardrail.models import GuardResult
from guardrail.proxy.deadline import StreamDeadline
from guardrail.proxy.request import ChatTurn
from guardrail.proxy.sse import EventTooLarge
from guardrail.proxy.upstream import (
    Upstream,
    UpstreamError,
    UpstreamStream,
    error_body,
    guard_failure,
    summarised_error,
    upstream_json,
)
from guardrail.serving.core import ServingCore
from guardrail.serving.limits import UpstreamLimits
from guardrail.streaming.check import SentenceVerdict
from guardrail.streaming.turn import AsyncGuardedStream
from guardrail.turn import Driver, Scored, Turn

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.guard import Guard

__all__ = [
    "PROXY",
    "ChatChunks",
    "Completion",
    "GuardedSSE",
    "Scoring",
    "complete",
    "guard_headers",
    "open_stream",
]

T = TypeVar("T")
_log = get_logger(__name__)
COMPLETIONS = "/chat/completions"
#: Message fields a client may display that the guard cannot check: withheld from the client.
_WITHHELD = ("reasoning_content", "reasoning")
_TOOL_FINISH = ("tool_calls", "function_call")
TOOL_CALLS_REASON = "the turn ended in tool calls"
#: The proxy as a driver of turns: it cannot ask the model again for a stricter answer.
PROXY = Driver("proxy", "no regeneration: the proxy does not ask the model again")


@dataclass(frozen=True)
class Scoring:
    """How the proxy scores an upstream answer: through the serving core, as ``serve`` scores
    a check — cut at ``max_answer_chars``, refused scoring above ``max_work`` (the policy's
    ``on_error`` decides, recorded), on a fair lane with the ``max_check_seconds`` deadline;
    a stream is also cut after ``max_stream_seconds`` or ``max_stream_chunks``."""

    core: ServingCore
    upstream: UpstreamLimits = field(default_factory=UpstreamLimits)

    @property
    def deadline_s(self) -> float:
        return float(self.core.limits.max_check_seconds)

    @property
    def max_answer_chars(self) -> int:
        return self.core.limits.max_answer_chars

    async def check(self, guard: Guard, turn: ChatTurn, text: str) -> GuardResult:
        notes: list[str] = []
        limit = self.max_answer_chars
        if len(text) > limit:
            notes.append(
                f"the upstream's answer was cut at {limit} of {len(text)} characters "
                "(--max-answer-chars); the cut answer was scored"
            )
            text = text[:limit]
        work = self.core.work(text, turn.contexts)
        problem = self.core.work_problem(work)
        if problem is not None:
            opened = await open_turn(guard, turn)
            return await opened.conclude_unscored(text, "failed", "; ".join([*notes, problem]))
        return await self.core.run_turn(
            guard.acheck(turn.question, text, turn.contexts, driver=PROXY, notes=notes),
            work=work,
        )


@dataclass(frozen=True)
class LaneScheduler:
    """A stream's scoring steps through the serving core, as a non-streamed answer's are: a
    step whose work is over ``max_work`` is not run (the final score: the policy's
    ``on_error`` decides; a held sentence: it is not released), the others run on the lane
    their work calls for, with the ``max_check_seconds`` deadline."""

    core: ServingCore
    contexts: Sequence[str]

    async def score(self, text: str, step: Callable[[], Coroutine[Any, Any, Scored]]) -> Scored:
        return await self._run(text, step, lambda problem: Scored(None, problem))

    async def check(
        self, text: str, step: Callable[[], Coroutine[Any, Any, SentenceVerdict]]
    ) -> SentenceVerdict:
        def held(problem: str) -> SentenceVerdict:
            return SentenceVerdict(ok=False, score=None, report=None, error=problem)

        return await self._run(text, step, held)

    async def _run(
        self,
        text: str,
        step: Callable[[], Coroutine[Any, Any, T]],
        refused: Callable[[str], T],
    ) -> T:
        """``step()`` on the lane ``text``'s work calls for, or ``refused(problem)`` without
        running it when that work is over the budget."""
        work = self.core.work(text, list(self.contexts))
        problem = self.core.work_problem(work)
        if problem is not None:
            return refused(problem)
        return await self.core.run_turn(step(), work=work)


def guard_summary(result: GuardResult) -> dict[str, Any]:
    d = result.decision
    return {
        "audit_id": result.audit_id,
        "decision": d.action,
        "flagged": d.flagged,
        "score": d.score,
        "threshold": d.threshold,
        "topic": d.topic,
        "reason": d.reason,
        "error": d.error,
        "languages": d.languages.model_dump() if d.languages is not None else None,
    }


def guard_headers(summary: dict[str, Any]) -> dict[str, str]:
    score = summary.get("score")
    return {
        "x-guardrail-audit-id": str(summary["audit_id"]),
        "x-guardrail-decision": str(summary["decision"]),
        "x-guardrail-score": "none" if score is None else f"{score:.4f}",
        **_language_headers(summary.get("languages")),
    }


def _language_headers(languages: Any) -> dict[str, str]:
    """``x-guardrail-language`` (the answer's) and ``x-guardrail-languages`` (question,
    answer, passages) when the turn's languages were read."""
    if not isinstance(languages, dict):
        return {}
    contexts = ",".join(languages.get("contexts") or []) or "none"
    return {
        "x-guardrail-language": str(languages.get("answer")),
        "x-guardrail-languages": (
            f"question={languages.get('question')}; answer={languages.get('answer')}; "
            f"contexts={contexts}"
        ),
    }


@dataclass
class Completion:
    body: dict[str, Any]
    headers: dict[str, str]


def server_timing(upstream_s: float, guard_s: float) -> str:
    """The ``Server-Timing`` header: where a request's time went (milliseconds)."""
    return f"upstream;dur={upstream_s * 1000:.1f}, guard;dur={guard_s * 1000:.1f}"


async def open_turn(guard: Guard, turn: ChatTurn, *, audit_id: str | None = None) -> Turn:
    """``guard.open_turn`` in a worker thread: classifying the topic of 100 KB of passages
    takes a tenth of a second, which would hold every other turn on the scoring loop."""
    return await asyncio.to_thread(guard.open_turn, turn.question, turn.contexts, audit_id=audit_id)


async def record_failure(guard: Guard, turn: ChatTurn, exc: BaseException, audit_id: str) -> None:
    """A ``turn_failed`` record for a request the upstream did not answer."""
    await (await open_turn(guard, turn, audit_id=audit_id)).record_failure("", exc)


async def _guard_choice(
    guard: Guard, turn: ChatTurn, choice: Any, scoring: Scoring
) -> dict[str, Any]:
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise UpstreamError(502, "upstream reply has a choice without a message")
    for hidden in _WITHHELD:  # hidden reasoning is withheld, never shown unchecked
        message.pop(hidden, None)
    content = message.get("content")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip() and not (isinstance(content, str) and content):
        # A refusal is text the user reads: it is guarded as the answer, in its own field.
        result = await scoring.check(guard, turn, refusal)
        message["refusal"] = result.answer
        return guard_summary(result)
    if isinstance(content, str) and content:
        message.pop("refusal", None)  # beside content, an unchecked refusal is withheld
    tool_turn = bool(message.get("tool_calls") or message.get("function_call")) or (
        choice.get("finish_reason") in _TOOL_FINISH
    )
    if not (isinstance(content, str) and content.strip()):
        # Nothing the user would read: the policy decides the turn (on_tool_calls for a
        # tool-call turn, on_error for an answer without text).
        opened = await open_turn(guard, turn)
        text = content if isinstance(content, str) else ""
        if tool_turn:
            result = await opened.conclude_unscored(text, "tool_calls", TOOL_CALLS_REASON)
        else:
            result = await opened.conclude_unscored(text, "no_text", "the answer has no text")
        if isinstance(content, str) and result.answer != content:
            message["content"] = result.answer
        return guard_summary(result)
    # Text beside tool calls is shown to the user: it is scored like any answer.
    result = await scoring.check(guard, turn, content)
    if result.answer != content:
        message["content"] = result.answer
        if "logprobs" in choice:
            choice["logprobs"] = None
    return guard_summary(result)


async def complete(
    guard: Guard, upstream: Upstream, turn: ChatTurn, client_key: str | None, scoring: Scoring
) -> Completion:
    """The upstream's reply to a non-streamed request, each choice guarded."""
    started = time.perf_counter()
    try:
        data = await upstream.post_json(
            COMPLETIONS, turn.upstream_body, client_key, max_bytes=scoring.upstream.max_reply_bytes
        )
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise UpstreamError(502, "upstream reply has no choices")
    except Exception as exc:
        await record_failure(guard, turn, exc, uuid.uuid4().hex)
        raise
    answered = time.perf_counter()
    summaries = [await _guard_choice(guard, turn, choice, scoring) for choice in choices]
    summary = dict(summaries[0])
    if len(summaries) > 1:
        summary["choices"] = summaries
    data["guardrail"] = summary
    headers = guard_headers(summaries[0])
    headers["server-timing"] = server_timing(answered - started, time.perf_counter() - answered)
    return Completion(data, headers)


class ChatChunks:
    """The text deltas of the first choice, from upstream SSE payloads; the rest kept aside.

    An async iterator of strings (what the guarded stream reads). Payloads with no text are
    queued to forward as they are (:meth:`take_side`); finish and usage chunks are kept for
    the end (:meth:`closing`).

    Past ``max_chars`` answer characters, ``max_chunks`` upstream events (of any kind) or
    ``max_seconds`` since it was opened, or at an event the payload reader refused as too
    large (:class:`~guardrail.proxy.sse.EventTooLarge`), the stream is cut: nothing more is
    read, the upstream is closed, what arrived is scored and :meth:`notes` says which bound
    was hit.
    """

    def __init__(
        self,
        payloads: AsyncIterator[str],
        *,
        max_chars: int | None = None,
        max_chunks: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        self._payloads = payloads
        self.max_chars = max_chars
        self.max_chunks = max_chunks
        self.max_seconds = max_seconds
        self._deadline = StreamDeadline(max_seconds)
        self.chars = 0
        self.events = 0
        #: Why the stream was cut (the bound that was hit), or None.
        self.cut: str | None = None
        self._gen = self._texts()
        self.template: dict[str, Any] = {}
        self.tool_calls = False
        self._side: list[str] = []
        self._closing: list[dict[str, Any]] = []
        self._logprobs: deque[Any] = deque()
        self._frame: tuple[dict[str, Any], str, str] | None = None

    def __aiter__(self) -> ChatChunks:
        return self

    async def __anext__(self) -> str:
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        await self._gen.aclose()
        closer = getattr(self._payloads, "aclose", None)
        if closer is not None:
            await closer()

    def notes(self) -> list[str]:
        """What the proxy did to the stream, for the decision's reason."""
        return [] if self.cut is None else [f"{self.cut}; what arrived was scored"]

    async def _bounded(self) -> AsyncGenerator[str, None]:
        """The upstream's payloads until it ends or a bound on time or chunks is hit."""
        payloads = aiter(self._payloads)
        try:
            while True:
                try:
                    raw = await self._deadline.read(anext(payloads))
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    self.cut = (
                        f"the upstream's stream was cut after {self.max_seconds:g} s "
                        "(--max-stream-seconds)"
                    )
                    return
                except EventTooLarge as exc:
                    self.cut = (
                        f"the upstream's stream was cut at an event over {exc.limit} bytes "
                        "(--max-event-bytes)"
                    )
                    return
                self.events += 1
                if self.max_chunks is not None and self.events > self.max_chunks:
                    self.cut = (
                        f"the upstream's stream was cut after {self.max_chunks} chunks "
                        "(--max-stream-chunks)"
                    )
                    return
                yield raw
        finally:
            self._deadline.close()

    def unscored(self) -> str | None:
        """Why the turn may carry no score: it ended in tool calls (its text, if any, is
        still scored)."""
        return TOOL_CALLS_REASON if self.tool_calls else None

    async def _texts(self) -> AsyncGenerator[str, None]:
        async for raw in self._bounded():
            event, replaced = upstream_json(raw)
            if replaced:
                raw = json.dumps(event)  # forwarded as cleaned, never as sent
            if not isinstance(event, dict):
                raise UpstreamError(502, "upstream sent an event that is not a JSON object")
            if "error" in event and not event.get("choices"):
                # the upstream's error text may echo a key or the prompt: a summary only
                summary = summarised_error(502, event)["error"]["message"]
                raise UpstreamError(502, f"upstream failed mid-stream ({summary})")
            if not self.template:
                keys = ("id", "object", "created", "model", "system_fingerprint")
                self.template = {k: event[k] for k in keys if k in event}
            choices = event.get("choices") or []
            if not choices:
                self._closing.append(event)
                continue
            choice = choices[0]
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # one choice is guarded (n = 1): another is never relayed
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                delta = {}
            finish = choice.get("finish_reason")
            if delta.get("tool_calls") or delta.get("function_call") or finish in _TOOL_FINISH:
                self.tool_calls = True
            if any(key in delta for key in (*_WITHHELD, "refusal")) or len(choices) > 1:
                # Hidden reasoning is withheld; a refusal is text the user reads: guarded as
                # text; another choice is dropped. Only then is the event written anew.
                delta = {k: v for k, v in delta.items() if k not in _WITHHELD}
                refusal = delta.pop("refusal", None)
                if isinstance(refusal, str) and refusal:
                    content = delta.get("content")
                    delta["content"] = (content if isinstance(content, str) else "") + refusal
                choice = {**choice, "delta": delta}
                event = {**event, "choices": [choice]}
                raw = json.dumps(event)
            content = delta.get("content")
            if not (isinstance(content, str) and content):
                if finish:
                    self._closing.append(event)
                else:
                    self._side.append(raw)
                continue
            if self.max_chars is not None and self.chars + len(content) > self.max_chars:
                content = content[: self.max_chars - self.chars]
                self.cut = (
                    f"the upstream's answer was cut at {self.max_chars} characters "
                    "(--max-answer-chars)"
                )
            self.chars += len(content)
            if self.cut:
                if content:
                    yield content
                return  # the rest of the upstream's stream is not read
            self._logprobs.append(choice.get("logprobs"))
            rest = {k: v for k, v in delta.items() if k != "content" and v is not None}
            if finish or rest:
                stripped = {**event, "choices": [{**choice, "delta": rest, "logprobs": None}]}
                if finish:
                    self._closing.append(stripped)
                else:
                    self._side.append(json.dumps(stripped))
            yield content

    def take_side(self) -> list[str]:
        side, self._side = self._side, []
        return side

    def content_event(self, text: str, *, with_logprobs: bool) -> str:
        """The JSON of a chunk carrying ``text`` (and its logprobs when kept)."""
        logprobs = self._logprobs.popleft() if with_logprobs and self._logprobs else None
        if not with_logprobs:
            self._logprobs.clear()
        if logprobs is not None:
            return json.dumps(self._content_chunk(text, logprobs))
        if self._frame is None or self._frame[0] is not self.template:
            # the chunk's JSON around its text, made once: only the text is encoded per chunk
            pre, post = json.dumps(self._content_chunk(None, None)).split('"content": null')
            self._frame = (self.template, pre, post)
        _template, pre, post = self._frame
        return f'{pre}"content": {encode_basestring_ascii(text)}{post}'

    def _content_chunk(self, text: str | None, logprobs: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": {"content": text}, "logprobs": logprobs}
        return {**self.template, "choices": [{**choice, "finish_reason": None}]}

    def closing(self, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """The finish (and usage) chunks, the last carrying ``guardrail``; one is made up
        when the upstream sent none (the stream was cut at a held sentence)."""
        events = list(self._closing)
        if not any(e.get("choices") for e in events):
            choice = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
            events.insert(0, {**self.template, "choices": [choice]})
        events[-1] = {**events[-1], "guardrail": summary}
        return events


def _sse(payload: str) -> bytes:
    return f"data: {payload}\n\n".encode()


@dataclass
class GuardedSSE:
    """An open guarded stream: its audit id (for the headers) and the SSE body."""

    guarded: AsyncGuardedStream
    chunks: ChatChunks
    upstream: UpstreamStream
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def audit_id(self) -> str:
        return self.guarded.audit_id

    async def close(self) -> None:
        """Close a stream that will not be read: the upstream is closed, the turn recorded
        as unread."""
        try:
            await self.guarded.aclose()
        finally:
            await self.upstream.aclose()

    async def body(self) -> AsyncGenerator[bytes, None]:
        """``data:`` lines for the client, ``[DONE]`` last; an error event if the upstream
        breaks mid-stream (the turn is recorded as failed first)."""
        guarded, chunks = self.guarded, self.chunks
        try:
            async for text in guarded:
                for raw in chunks.take_side():
                    yield _sse(raw)
                yield _sse(chunks.content_event(text, with_logprobs=guarded.mode == "release"))
            for raw in chunks.take_side():
                yield _sse(raw)
            result = guarded.result
            if result is None:  # pragma: no cover - the stream ends with a result or raises
                raise RuntimeError("the guarded stream ended without a result")
            for event in chunks.closing(guard_summary(result)):
                yield _sse(json.dumps(event))
            yield b"data: [DONE]\n\n"
        except UpstreamError as exc:
            yield _sse(json.dumps(exc.body))
        except Exception as exc:
            _log.error("the guard failed on a proxied stream", error=repr(exc))
            body = error_body(guard_failure(exc), "guard_error", 500)
            yield _sse(json.dumps(body))
        finally:
            await guarded.aclose()
            await self.upstream.aclose()


async def open_stream(
    guard: Guard, upstream: Upstream, turn: ChatTurn, client_key: str | None, scoring: Scoring
) -> GuardedSSE:
    """Open the upstream stream (errors before its first byte raise, recorded) and the guard."""
    audit_id = uuid.uuid4().hex
    try:
        opened = await upstream.open_stream(COMPLETIONS, turn.upstream_body, client_key)
    except Exception as exc:
        await record_failure(guard, turn, exc, audit_id)
        raise
    chunks = ChatChunks(
        opened.events(scoring.upstream.max_event_bytes),
        max_chars=scoring.max_answer_chars,
        max_chunks=scoring.upstream.max_stream_chunks,
        max_seconds=scoring.upstream.max_stream_seconds,
    )
    guarded = guard.astream(
        turn.question,
        chunks,
        turn.contexts,
        unscored=chunks.unscored,
        deadline_s=scoring.deadline_s,
        notes=chunks.notes,
        scheduler=LaneScheduler(scoring.core, turn.contexts),
    )
    return GuardedSSE(guarded, chunks, opened)
