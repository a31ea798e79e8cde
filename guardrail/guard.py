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
import functools
import inspect
import logging
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
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast, overload

from guardrail._sync import LoopThread
from guardrail.actions.answers import accepts_instruction, normalize_answer, normalize_contexts
from guardrail.actions.escalate import Escalator
from guardrail.actions.table import Turn, apply_actions, exhausted_note, strongest
from guardrail.audit import AuditRecord, AuditTrail, TextRedaction
from guardrail.audit.trail import trail_identity
from guardrail.exceptions import ConfigError, JudgeError, ScoringError
from guardrail.judges.base import ClosableJudge, Judge
from guardrail.judges.registry import make_judge
from guardrail.judges.runner import JudgeCallError
from guardrail.logs import bound, get_logger
from guardrail.models import (
    ActionName,
    Citation,
    Decision,
    GuardResult,
    JudgeCall,
    ScoreReport,
    TopicLabel,
)
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_FALLBACK, DEFAULT_REVIEW_DB
from guardrail.policy import Policy, PolicyEngine, load_policy
from guardrail.policy.schema import TopicRule
from guardrail.queues.base import EscalationSink
from guardrail.scoring.base import Scorer
from guardrail.scoring.cascade import CascadeChoice
from guardrail.scoring.factory import build_scorer
from guardrail.telemetry.turns import Telemetry, scoring_done, scoring_started
from guardrail.topics import TopicClassifier

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.streaming import AsyncGuardedStream, GuardedStream

#: Regenerate callback: takes the stricter instruction, returns a new answer-like value.
Regenerator = Callable[[str], Awaitable[Any]]
_log = get_logger(__name__)
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
        """The scorer every turn uses. Assigning one checks it against the policy: a policy
        that sets a topic's ``cascade`` needs a scorer with ``supports_cascade``."""
        return self._scorer

    @scorer.setter
    def scorer(self, scorer: Scorer) -> None:
        cascade_ok = bool(getattr(scorer, "supports_cascade", False))
        if not cascade_ok and any(r.cascade not in (None, False) for r in self.policy.topics):
            raise ConfigError(
                f"policy {self.policy.name!r} turns a topic's cascade on, but the scorer "
                f"({type(scorer).__name__}) has no cascade"
            )
        self._scorer = scorer
        self._cascade_ok = cascade_ok

    @contextlib.contextmanager
    def override(
        self, *, scorer: Scorer | None = None, judge: Judge | str | None = None
    ) -> Iterator[Guard]:
        """Use another ``scorer``, or the policy's scorer built around another ``judge`` (a
        judge or a spec such as ``"test"``), inside a ``with`` block; restored on exit.

        Meant for tests::

            with guard.override(judge=TestJudge(rule)):
                result = guard.check(question, answer, contexts)

        The replacement is checked against the policy like any scorer.
        """
        if scorer is not None and judge is not None:
            raise ConfigError("override takes a scorer or a judge, not both")
        previous = self._scorer
        if judge is not None:
            scorer = build_scorer(self.policy.scorer, judge=make_judge(judge))
        if scorer is not None:
            self.scorer = scorer
        try:
            yield self
        finally:
            self._scorer = previous
            self._cascade_ok = bool(getattr(previous, "supports_cascade", False))

    # -- entry points -----------------------------------------------------------------------

    async def acheck(
        self,
        question: str,
        answer: str,
        contexts: Sequence[Any] | str | None = None,
        *,
        regenerate: Regenerator | None = None,
    ) -> GuardResult:
        """Guard one turn. ``regenerate(instruction)`` may be called for a stricter answer."""
        if not isinstance(question, str) or not isinstance(answer, str):
            raise ConfigError("question and answer must be strings")
        audit_id = uuid.uuid4().hex
        passages = normalize_contexts(contexts)
        calls: list[JudgeCall] = []
        with (
            bound(turn_id=audit_id),
            self.telemetry.turn(
                policy=self.policy.name, redaction=self.redaction, question=question, answer=answer
            ) as trace,
        ):
            try:
                result = await self._turn(audit_id, question, answer, passages, regenerate, calls)
            except BaseException as exc:
                _log.error("turn failed", policy=self.policy.name, error=repr(exc))
                await self._audit_crash(audit_id, question, answer, calls, exc)
                raise
            decision = result.decision
            _log.log(
                logging.WARNING if decision.error else logging.INFO,
                "turn decided",
                policy=self.policy.name,
                topic=decision.topic,
                action=decision.action,
                score=decision.score,
                error=decision.error,
            )
            await self._audit_turn(result, calls)
            trace.done(result)
        return result

    def check(
        self,
        question: str,
        answer: str,
        contexts: Sequence[Any] | str | None = None,
        *,
        regenerate: Callable[[str], Any] | None = None,
    ) -> GuardResult:
        """Blocking :meth:`acheck` (refuses to run inside an event loop).

        Turns run on the guard's own event loop (one background thread), so judges keep their
        HTTP clients across calls; many threads may call ``check`` at once. A blocking
        ``regenerate`` runs in a worker thread.
        """
        regen = _async_regenerator(regenerate) if regenerate else None
        return self._loop.run(self.acheck(question, answer, contexts, regenerate=regen))

    def astream(
        self,
        question: str,
        chunks: Any,
        contexts: Sequence[Any] | str | None = None,
        *,
        unscored: Callable[[], str | None] | None = None,
    ) -> AsyncGuardedStream:
        """Guard a streamed answer: an async iterator of the text to show (see
        :mod:`guardrail.streaming`); ``chunks`` is a sync or async iterator of text chunks or
        the ``openai`` SDK's stream. The turn's :class:`GuardResult` is its ``result``.
        ``unscored()``, asked when the stream ends, may give a reason to record the turn
        unscored (the proxy: a turn that ended in tool calls)."""
        from guardrail.streaming import AsyncGuardedStream

        if not isinstance(question, str):
            raise ConfigError("question must be a string")
        return AsyncGuardedStream(self, question, chunks, contexts, unscored=unscored)

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

    # -- one turn ---------------------------------------------------------------------------

    async def _score(
        self,
        question: str,
        answer: str,
        passages: list[str],
        threshold: float,
        calls: list[JudgeCall],
        cascade: CascadeChoice = None,
    ) -> tuple[ScoreReport | None, str | None]:
        """The report, or ``(None, error)`` when the judges failed (the policy's ``on_error``).

        Only judge and scoring failures take that path; any other exception is a bug in the
        scorer and propagates (:meth:`acheck` audits it as ``turn_failed``), so it can never let
        an answer pass unscored.
        """
        try:
            options = {} if cascade is None else {"cascade": cascade}
            report = await self.scorer.score(
                question, answer, passages, threshold=threshold, **options
            )
        except ScoringError as exc:
            calls.extend(exc.calls)
            return None, str(exc)
        except JudgeError as exc:
            if isinstance(exc, JudgeCallError):
                calls.append(exc.call)
            return None, f"{type(exc).__name__}: {exc}"
        calls.extend(report.calls)
        return report, None

    async def _turn(
        self,
        audit_id: str,
        question: str,
        answer: str,
        passages: list[str],
        regenerate: Regenerator | None,
        calls: list[JudgeCall],
    ) -> GuardResult:
        topics = self.classifier.classify(question, passages)
        rule = self.engine.rule_for(topics)
        cascade = self.engine.cascade_for(topics) if self._cascade_ok else None
        original = answer
        attempt = 1
        notes: list[str] = []
        taken: list[ActionName] = []
        while True:
            mark = scoring_started(calls)
            report, error = await self._score(
                question, answer, passages, rule.threshold, calls, cascade
            )
            scoring_done(mark, report, error)
            decision = self.engine.decide(report, topics, error=error, attempt=attempt)
            regen = rule.on_flag.regenerate
            if "regenerate" not in decision.actions or regen is None:
                break
            attempt += 1
            failure = "regeneration skipped: no chatbot to ask again (wrap it, or pass regenerate=)"
            if regenerate is not None:
                try:
                    answer, passages = normalize_answer(await regenerate(regen.instruction))
                    failure = ""
                except Exception as exc:  # a failing chatbot must not lose the turn
                    failure = f"regeneration failed: {type(exc).__name__}: {exc}"
            if failure:
                # The answer did not change: decide once more on its report, as exhausted,
                # rather than scoring the same answer again.
                notes.append(failure)
                exhausted = regen.max_attempts + 1
                decision = self.engine.decide(report, topics, error=error, attempt=exhausted)
                reason = decision.reason.replace(exhausted_note(regen.max_attempts), "")
                decision = decision.model_copy(update={"reason": reason})
                break
            if "regenerate" not in taken:
                taken.append("regenerate")

        final, citations, highlighted, escalation_error = await self._apply(
            audit_id, question, answer, passages, topics, rule, decision, report
        )
        decision = self._final_decision(decision, taken, notes, escalation_error)
        result = GuardResult(
            audit_id=audit_id,
            policy=self.policy.name,
            question=question,
            answer=final,
            original_answer=original,
            contexts=passages,
            decision=decision,
            topics=topics,
            report=report,
            citations=citations,
            highlighted=highlighted,
            attempts=attempt if taken else 1,
            scored_answer=answer,
        )
        return result

    async def _apply(
        self,
        audit_id: str,
        question: str,
        answer: str,
        passages: list[str],
        topics: list[TopicLabel],
        rule: TopicRule,
        decision: Decision,
        report: ScoreReport | None,
    ) -> tuple[str, list[Citation], str | None, str | None]:
        """Apply the decision's actions (the action table's, in its order)."""
        turn = await apply_actions(
            Turn(
                audit_id=audit_id,
                policy=self.policy.name,
                question=question,
                answer=answer,
                contexts=passages,
                topics=topics,
                rule=rule,
                decision=decision,
                report=report,
                escalator=self.escalator,
                final=answer,
                audit_trail=trail_identity(self.audit),
            )
        )
        return turn.final, turn.citations, turn.highlighted, turn.escalation_error

    @staticmethod
    def _final_decision(
        decision: Decision, taken: list[ActionName], notes: list[str], escalation_error: str | None
    ) -> Decision:
        actions = [*taken, *(a for a in decision.actions if a not in taken)]
        reason = "; ".join([decision.reason, *notes]) if notes else decision.reason
        errors = [e for e in (decision.error, escalation_error) if e]
        return decision.model_copy(
            update={
                "actions": actions,
                "action": strongest(actions),
                "reason": reason,
                "error": "; ".join(errors) if errors else None,
            }
        )

    # -- audit ------------------------------------------------------------------------------

    async def _audit_turn(self, result: GuardResult, calls: list[JudgeCall]) -> None:
        if self.audit is None:
            return
        record = AuditRecord.from_result(
            result, policy_hash=self.policy.content_hash, redaction=self.redaction, calls=calls
        )
        await self.audit.aappend(record)

    async def _audit_crash(
        self,
        audit_id: str,
        question: str,
        answer: str,
        calls: list[JudgeCall],
        exc: BaseException,
    ) -> None:
        if self.audit is None:
            return
        record = (
            AuditRecord.event(
                "turn_failed",
                policy=self.policy.name,
                policy_hash=self.policy.content_hash,
                error=f"{type(exc).__name__}: {exc}",
            )
            .model_copy(
                update={
                    "audit_id": audit_id,
                    "question": question,
                    "answer": answer,
                    "judge_calls": list(calls),
                }
            )
            .redacted(self.redaction)
        )
        # The original error matters more: the caller re-raises it whatever happens here.
        with contextlib.suppress(Exception):
            await self.audit.aappend(record)


def _async_regenerator(fn: Callable[[str], Any]) -> Regenerator:
    async def regen(instruction: str) -> Any:
        out = await asyncio.to_thread(fn, instruction)  # keep the shared loop free meanwhile
        if inspect.isawaitable(out):
            return await out
        return out

    return regen
