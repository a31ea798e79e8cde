"""The middleware: wrap an answer function, score every answer, apply the policy, audit it.

One turn, in order::

    classify topics (query / context)  ->  strictest topic rule  ->  score (MetaRAG/RT4CHART)
      -> decide (policy engine)  ->  regenerate? (re-score, up to N)  ->  highlight / cite
      -> abstain / escalate  ->  audit record  ->  GuardResult

Failures never lose a turn: a scoring failure (judge down, timeout, parse trouble beyond the
fallbacks) becomes a decision by the topic's ``on_error`` rule (sensitive topics fail closed);
an escalation sink failure falls back to the fallback sink; and every turn — including one that
crashed half-way — gets an audit record carrying every judge call made.

The core is async (:meth:`Guard.acheck`); :meth:`Guard.check` is the one blocking wrapper. It
runs turns on one event loop that the guard keeps on a background thread, so the SDK judges'
HTTP clients and connection pools are reused from one ``check`` to the next;
:meth:`Guard.close` (or ``with Guard...``) stops that loop and closes the judges the guard built.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import uuid
import weakref
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
    Mapping,
    Sequence,
)
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast, overload

from guardrail._sync import LoopThread
from guardrail.actions.answers import accepts_instruction, normalize_answer
from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditTrail, TextRedaction
from guardrail.exceptions import ConfigError
from guardrail.judges.base import ClosableJudge, Judge
from guardrail.judges.registry import make_judge
from guardrail.logs import bound, get_logger
from guardrail.models import GuardResult, JudgeCall
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_FALLBACK, DEFAULT_REVIEW_DB
from guardrail.policy import Policy, PolicyEngine, load_policy
from guardrail.queues.base import EscalationSink
from guardrail.scoring.base import Scorer
from guardrail.scoring.factory import build_scorer
from guardrail.telemetry.turns import Telemetry
from guardrail.topics import TopicClassifier
from guardrail.turn import CHECK, Driver, Regenerator, Turn, TurnParts, run_check

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.streaming import AsyncGuardedStream, GuardedStream
    from guardrail.streaming.turn import StreamScheduler

_log = get_logger(__name__)
#: Scorers in force for ``Guard.override`` blocks, by guard (``id``): per context, so an
#: override reaches the turns its block starts and nothing else.
_OVERRIDES: contextvars.ContextVar[Mapping[int, Scorer]] = contextvars.ContextVar(
    "guardrail_overrides", default=MappingProxyType({})
)
P = ParamSpec("P")
R = TypeVar("R")


class Guard:
    """Policy-driven guardrail around a RAG answer function.

    Build one with :meth:`from_yaml` for the usual wiring (SQLite review queue, JSON Lines
    audit log, offline judge unless the policy names another), or pass every part explicitly.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        judge: Judge | None = None,
        scorer: Scorer | None = None,
        classifier: TopicClassifier | None = None,
        escalator: Escalator | None = None,
        audit: AuditTrail | None = None,
        redaction: TextRedaction = "none",
        telemetry: Telemetry | None = None,
    ) -> None:
        self.policy = policy
        self.engine = PolicyEngine(policy)
        self._built_judges: dict[str, Judge] = {}
        self.scorer = scorer or build_scorer(policy.scorer, judge=judge, judges=self._built_judges)
        self.classifier = classifier or TopicClassifier.from_policy(policy)
        self.escalator = escalator or Escalator()
        self.audit = audit
        self.redaction: TextRedaction = redaction
        #: OpenTelemetry spans and metrics (global providers unless given; docs/telemetry.md)
        self.telemetry = telemetry or Telemetry()
        self._loop = LoopThread()
        weakref.finalize(self, self._loop.stop)  # a guard dropped without close() stops its loop

    @classmethod
    def from_yaml(
        cls,
        path: str | Path | Policy,
        *,
        judge: Judge | None = None,
        audit_log: str | Path | None = DEFAULT_AUDIT_LOG,
        review_db: str | Path = DEFAULT_REVIEW_DB,
        fallback_log: str | Path = DEFAULT_FALLBACK,
        sinks: Mapping[str, EscalationSink] | None = None,
        redaction: TextRedaction = "none",
    ) -> Guard:
        """Load a policy file (or take a loaded :class:`Policy`) and wire the default parts
        (files are created on first use).

        ``review_db`` and ``audit_log`` are paths, or ``postgresql://`` URLs (the ``postgres``
        extra) for a review queue and audit trail shared by several processes or hosts.
        """
        from guardrail.audit.trail import open_audit_log
        from guardrail.queues.jsonl import JSONLSink
        from guardrail.queues.review_queue import ReviewQueue

        policy = path if isinstance(path, Policy) else load_policy(path)
        escalator = Escalator(
            sinks, default=ReviewQueue(review_db), fallback=JSONLSink(fallback_log)
        )
        audit = open_audit_log(audit_log, redaction=redaction) if audit_log is not None else None
        return cls(policy, judge=judge, escalator=escalator, audit=audit, redaction=redaction)

    # -- parts ------------------------------------------------------------------------------

    @property
    def scorer(self) -> Scorer:
        """The scorer turns started here use: the guard's own, or an :meth:`override`'s
        inside its block. Assigning one checks it against the policy: a policy that sets a
        topic's ``cascade`` needs a scorer with ``supports_cascade``."""
        return _OVERRIDES.get().get(id(self), self._scorer)

    @scorer.setter
    def scorer(self, scorer: Scorer) -> None:
        self._check_scorer(scorer)
        self._scorer = scorer

    def _check_scorer(self, scorer: Scorer) -> None:
        cascade_ok = bool(getattr(scorer, "supports_cascade", False))
        if not cascade_ok and any(r.cascade not in (None, False) for r in self.policy.topics):
            raise ConfigError(
                f"policy {self.policy.name!r} turns a topic's cascade on, but the scorer "
                f"({type(scorer).__name__}) has no cascade"
            )

    @contextlib.contextmanager
    def override(
        self, *, scorer: Scorer | None = None, judge: Judge | str | None = None
    ) -> Iterator[Guard]:
        """Use another ``scorer``, or the policy's scorer built around another ``judge`` (a
        judge or a spec such as ``"test"``), for the turns started inside a ``with`` block.

        Meant for tests::

            with guard.override(judge=TestJudge(rule)):
                result = guard.check(question, answer, contexts)

        The override is a context variable, not a change to the guard: it reaches every part
        of the turns its block starts (a held stream's sentence checks included), other
        threads and tasks keep the guard's own scorer, and it ends with the block. The
        replacement is checked against the policy like any scorer.
        """
        if scorer is not None and judge is not None:
            raise ConfigError("override takes a scorer or a judge, not both")
        if judge is not None:
            scorer = build_scorer(self.policy.scorer, judge=make_judge(judge))
        if scorer is None:
            yield self
            return
        self._check_scorer(scorer)
        token = _OVERRIDES.set(MappingProxyType({**_OVERRIDES.get(), id(self): scorer}))
        try:
            yield self
        finally:
            _OVERRIDES.reset(token)

    def parts(self) -> TurnParts:
        """The parts a turn started now uses (an override in force included)."""
        return TurnParts(
            policy=self.policy,
            engine=self.engine,
            scorer=self.scorer,
            classifier=self.classifier,
            escalator=self.escalator,
            audit=self.audit,
            redaction=self.redaction,
            telemetry=self.telemetry,
        )

    def open_turn(
        self,
        question: str,
        contexts: Sequence[Any] | str | None = None,
        *,
        audit_id: str | None = None,
    ) -> Turn:
        """Open one turn of the pipeline (:mod:`guardrail.turn`) on this guard's parts: for
        drivers other than :meth:`check` and :meth:`stream` (the proxy, adapters)."""
        if not isinstance(question, str):
            raise ConfigError("question must be a string")
        return self.parts().open(question, contexts, audit_id=audit_id)

    # -- entry points -----------------------------------------------------------------------

    async def acheck(
        self,
        question: str,
        answer: str,
        contexts: Sequence[Any] | str | None = None,
        *,
        regenerate: Regenerator | None = None,
        driver: Driver = CHECK,
        notes: Sequence[str] = (),
    ) -> GuardResult:
        """Guard one turn. ``regenerate(instruction)`` may be called for a stricter answer;
        ``driver`` names what drives the turn (for the reasons it gives: the proxy's);
        ``notes`` are added to the decision's reason (what the driver did to the answer)."""
        if not isinstance(question, str) or not isinstance(answer, str):
            raise ConfigError("question and answer must be strings")
        parts = self.parts()
        audit_id = uuid.uuid4().hex
        calls: list[JudgeCall] = []
        with (
            bound(turn_id=audit_id),
            self.telemetry.turn(
                policy=self.policy.name, redaction=self.redaction, question=question, answer=answer
            ) as trace,
        ):
            try:
                turn = parts.open(question, contexts, audit_id=audit_id)
                calls = turn.calls
                result = await run_check(
                    turn, answer, regenerate=regenerate, driver=driver, notes=notes
                )
            except BaseException as exc:
                await parts.record_failure(audit_id, question, answer, exc, calls)
                raise
            trace.done(result)
        return result

    def check(
        self,
        question: str,
        answer: str,
        contexts: Sequence[Any] | str | None = None,
        *,
        regenerate: Callable[[str], Any] | None = None,
        driver: Driver = CHECK,
    ) -> GuardResult:
        """Blocking :meth:`acheck` (refuses to run inside an event loop).

        Turns run on the guard's own event loop (one background thread), so judges keep their
        HTTP clients across calls; many threads may call ``check`` at once. A blocking
        ``regenerate`` runs in a worker thread.
        """
        regen = _async_regenerator(regenerate) if regenerate else None
        return self._loop.run(
            self.acheck(question, answer, contexts, regenerate=regen, driver=driver)
        )

    def astream(
        self,
        question: str,
        chunks: Any,
        contexts: Sequence[Any] | str | None = None,
        *,
        unscored: Callable[[], str | None] | None = None,
        deadline_s: float | None = None,
        notes: Callable[[], Sequence[str]] | None = None,
        scheduler: StreamScheduler | None = None,
    ) -> AsyncGuardedStream:
        """Guard a streamed answer: an async iterator of the text to show (see
        :mod:`guardrail.streaming`); ``chunks`` is a sync or async iterator of text chunks or
        the ``openai`` SDK's stream. The turn's :class:`GuardResult` is its ``result``.
        ``unscored()``, asked when the stream ends, may give a reason to record the turn
        unscored (the proxy: a turn that ended in tool calls). ``deadline_s`` bounds the
        final scoring (past it the policy's ``on_error`` rule decides); ``notes()``, asked
        at the end, adds what the driver did to the stream to the decision's reason;
        ``scheduler`` runs the scoring steps (the proxy: within its work budget, on its
        lanes)."""
        from guardrail.streaming import AsyncGuardedStream

        if not isinstance(question, str):
            raise ConfigError("question must be a string")
        return AsyncGuardedStream(
            self.parts(),
            question,
            chunks,
            contexts,
            unscored=unscored,
            deadline_s=deadline_s,
            notes=notes,
            scheduler=scheduler,
        )

    def stream(
        self, question: str, chunks: Any, contexts: Sequence[Any] | str | None = None
    ) -> GuardedStream:
        """Blocking :meth:`astream`: an iterator run on the guard's own event loop."""
        from guardrail.streaming import GuardedStream

        return GuardedStream(self.astream(question, chunks, contexts), self._loop)

    # -- lifecycle --------------------------------------------------------------------------

    async def _close_built_judges(self) -> None:
        for judge in self._built_judges.values():
            if isinstance(judge, ClosableJudge):
                await judge.aclose()

    def close(self) -> None:
        """Close the judges this guard built (not a ``judge=`` you passed), stop its loop.

        Also closes the audit log file (a later turn reopens it). Safe to call twice; the guard
        stays usable (a later ``check`` starts a new loop and new clients).
        """
        if self._loop.loop is not None:
            self._loop.run(self._close_built_judges())
        self._loop.stop()
        if self.audit is not None:
            self.audit.close()

    async def aclose(self) -> None:
        """:meth:`close` for async code: also closes clients made on the running loop."""
        await self._close_built_judges()
        loop = self._loop.loop
        if loop is not None:
            await asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(self._close_built_judges(), loop)
            )
        await asyncio.to_thread(self._loop.stop)
        if self.audit is not None:
            self.audit.close()

    def __enter__(self) -> Guard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Guard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # A generator function returns a guarded stream (checked before the general overloads).
    @overload
    def wrap(  # type: ignore[overload-overlap]
        self, fn: Callable[Concatenate[str, P], AsyncIterator[Any]]
    ) -> Callable[Concatenate[str, P], AsyncGuardedStream]: ...

    @overload
    def wrap(  # type: ignore[overload-overlap]
        self, fn: Callable[Concatenate[str, P], Iterator[Any]]
    ) -> Callable[Concatenate[str, P], GuardedStream]: ...

    # An async function matches both overloads; the first (async) one wins, as intended.
    @overload
    def wrap(  # type: ignore[overload-overlap]
        self, fn: Callable[Concatenate[str, P], Coroutine[Any, Any, R]]
    ) -> Callable[Concatenate[str, P], Awaitable[GuardResult]]: ...

    @overload
    def wrap(
        self, fn: Callable[Concatenate[str, P], R]
    ) -> Callable[Concatenate[str, P], GuardResult]: ...

    def wrap(self, fn: Callable[Concatenate[str, P], Any]) -> Callable[Concatenate[str, P], Any]:
        """Decorate an answer function (sync or async); it then returns a GuardResult.

        The function is called as ``fn(question, *args, **kwargs)`` and must return an
        answer-like value (see :mod:`guardrail.actions.answers`). The wrapper keeps the
        function's parameters for type checkers; an async function stays async. A function
        whose answer is a stream of text chunks (:func:`guardrail.streaming.chunks.
        streamed_answer`) gets a guarded stream back instead: :meth:`stream` for a sync
        function, :meth:`astream` for an async one.
        """
        from guardrail.streaming.chunks import streamed_answer

        regenerable = accepts_instruction(fn)
        call: Callable[..., Any] = fn  # re-called with the guardrail_instruction keyword

        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            def streamed(question: str, *args: P.args, **kwargs: P.kwargs) -> Any:
                return self.astream(question, fn(question, *args, **kwargs))

            return cast("Callable[Concatenate[str, P], Any]", streamed)

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def awrapped(question: str, *args: P.args, **kwargs: P.kwargs) -> Any:
                returned = await fn(question, *args, **kwargs)
                streamed = streamed_answer(returned)
                if streamed is not None:
                    return self.astream(question, *streamed)
                answer, contexts = normalize_answer(returned)

                async def regen(instruction: str) -> Any:
                    return await call(question, *args, guardrail_instruction=instruction, **kwargs)

                return await self.acheck(
                    question, answer, contexts, regenerate=regen if regenerable else None
                )

            return cast("Callable[Concatenate[str, P], Awaitable[GuardResult]]", awrapped)

        @functools.wraps(fn)
        def wrapped(question: str, *args: P.args, **kwargs: P.kwargs) -> Any:
            returned = fn(question, *args, **kwargs)
            streamed = streamed_answer(returned)
            if streamed is not None:
                return self.stream(question, *streamed)
            answer, contexts = normalize_answer(returned)

            def regen(instruction: str) -> Any:
                return call(question, *args, guardrail_instruction=instruction, **kwargs)

            return self.check(question, answer, contexts, regenerate=regen if regenerable else None)

        return cast("Callable[Concatenate[str, P], GuardResult]", wrapped)


def _async_regenerator(fn: Callable[[str], Any]) -> Regenerator:
    async def regen(instruction: str) -> Any:
        out = await asyncio.to_thread(fn, instruction)  # keep the shared loop free meanwhile
        if inspect.isawaitable(out):
            return await out
        return out

    return regen
