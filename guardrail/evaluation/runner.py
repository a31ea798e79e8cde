"""Score benchmark rows with any scorer: concurrently, resumably, with a progress bar.

Each finished row is appended to a JSON Lines *progress file* as soon as it completes (its id
and a summary of its report, enough to recompute every metric and any threshold). A rerun
with the same file skips rows already scored, so an interrupted run loses at most the rows in
flight. Rows whose scoring raised are recorded too (``ok: false`` and the error) and counted
as failed, with the judge calls, tokens and time they cost; a rerun tries them again.

The first line of the file is a header naming the method and judge; resuming with a different
method or judge is refused, because mixing reports from two scorers gives a meaningless figure.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Annotated, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from guardrail._fs import check_output_path, ensure_private
from guardrail.evaluation.datasets import EvalRow
from guardrail.exceptions import ConfigError, ScoringError
from guardrail.logs import get_logger
from guardrail.models import JudgeCall, ScoreReport, Span, Usage, merge_spans
from guardrail.scoring.base import Scorer
from guardrail.validation import error_line

PROGRESS_VERSION = 1

_log = get_logger(__name__)


class ReferenceScorer(Protocol):
    """The reference-based metric as the runner uses it (see :mod:`guardrail.scoring.reference`)."""

    async def summary(
        self,
        question: str,
        answer: str,
        references: Sequence[str],
        target: str,
        *,
        claims: Sequence[str] | None = None,
    ) -> dict[str, float | int]: ...


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


#: A score as progress files hold it: finite and within [0, 1], like every score guardrail makes.
Score = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class FactoidSummary(_Line):
    score: Score
    spans: list[Span] = Field(default_factory=list)
    focus: list[Span] = Field(default_factory=list)
    screened: bool = False  # settled as supported by the cascade's offline screen


class ProgressLine(_Line):
    """What every progress-file line holds: the item's id, whether it finished, and why not."""

    kind: str = "row"
    id: str
    ok: bool
    error: str | None = None


L = TypeVar("L", bound=ProgressLine)
I = TypeVar("I")  # noqa: E741 - an item to score (a benchmark row, a logged turn)


class RowOutcome(ProgressLine):
    """One progress-file line: a row's report summary, or the error that stopped it."""

    score: Score | None = None
    status: str | None = None
    factoids: list[FactoidSummary] = Field(default_factory=list)
    flagged_spans: list[Span] = Field(default_factory=list)
    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parse_failures: int = 0
    unusable_replies: int = 0
    parse_causes: dict[str, int] = Field(default_factory=dict)
    unusable_causes: dict[str, int] = Field(default_factory=dict)
    failed_calls: int = 0
    calls_without_usage: int = 0
    cached_calls: int = 0
    cached_prompt_tokens: int | None = None
    round_trips: int = 0
    seconds: float = 0.0
    reference: dict[str, float | int] | None = None

    @classmethod
    def from_report(cls, row_id: str, report: ScoreReport, seconds: float) -> RowOutcome:
        return cls(
            id=row_id,
            ok=True,
            score=report.score,
            status=report.status,
            factoids=[
                FactoidSummary(
                    score=f.score, spans=list(f.spans), focus=list(f.focus), screened=f.screened
                )
                for f in report.factoids
            ],
            flagged_spans=list(report.flagged_spans),
            judge_calls=report.usage.judge_calls,
            prompt_tokens=report.usage.prompt_tokens,
            completion_tokens=report.usage.completion_tokens,
            parse_failures=report.usage.parse_failures,
            unusable_replies=report.usage.unusable_replies,
            parse_causes=dict(report.usage.parse_causes),
            unusable_causes=dict(report.usage.unusable_causes),
            failed_calls=report.usage.failed_calls,
            calls_without_usage=report.usage.calls_without_usage,
            cached_calls=report.usage.cached_calls,
            cached_prompt_tokens=report.usage.cached_prompt_tokens,
            round_trips=sum(1 for stage in report.usage.stages if stage.calls),
            seconds=report.usage.wall_seconds or seconds,
        )

    @classmethod
    def from_failure(
        cls, row_id: str, error: str, calls: Sequence[JudgeCall], seconds: float
    ) -> RowOutcome:
        """A row whose scoring failed: its error, and what its judge calls cost all the same."""
        usage = Usage.from_calls(list(calls), [], seconds)
        return cls(
            id=row_id,
            ok=False,
            error=error,
            judge_calls=usage.judge_calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            parse_failures=usage.parse_failures,
            unusable_replies=usage.unusable_replies,
            parse_causes=dict(usage.parse_causes),
            unusable_causes=dict(usage.unusable_causes),
            failed_calls=usage.failed_calls,
            calls_without_usage=usage.calls_without_usage,
            cached_calls=usage.cached_calls,
            cached_prompt_tokens=usage.cached_prompt_tokens,
            seconds=seconds,
        )

    @property
    def unscored(self) -> bool:
        """Scoring failed, or the judge gave no signal (``judge_unusable``): the row's score
        means nothing, and a guard would apply its policy's on-error rule."""
        return not self.ok or self.status == "judge_unusable"

    def flagged_at(self, threshold: float) -> bool:
        return self.ok and self.score is not None and self.score >= threshold

    def spans_at(self, threshold: float) -> list[Span]:
        """Predicted hallucinated spans if the threshold were ``threshold``.

        The spans of every factoid scoring at or above it (its localizer ``focus`` when it has
        one); a summary without factoids falls back to the report's own flagged spans.
        """
        if not self.flagged_at(threshold):
            return []
        if self.factoids:
            return merge_spans(
                [s for f in self.factoids if f.score >= threshold for s in (f.focus or f.spans)]
            )
        return merge_spans(list(self.flagged_spans))


class _NonFinite(ValueError):
    """A NaN or infinity in a progress file: JSON allows neither, Python's parser both."""


def _no_constant(name: str) -> Any:
    raise _NonFinite(f"{name} is not a number a progress file may hold")


def _strict_json(text: str) -> Any:
    """:func:`json.loads` refusing ``NaN`` and ``Infinity``; too deep a nesting is a
    :class:`json.JSONDecodeError` like any other damage."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text[:100], 0) from None


class ProgressHeader(_Line):
    kind: str = "header"
    version: int = PROGRESS_VERSION
    method: str
    judge: str


class LineProgress(Generic[L]):
    """Append-only JSON Lines record of finished items, one ``line_type`` object a line."""

    def __init__(self, path: str | Path, header: ProgressHeader, line_type: type[L]) -> None:
        self.path = Path(path)
        self.header = header
        self.line_type = line_type
        self._handle: IO[str] | None = None

    def load(self) -> dict[str, L]:
        """Items already finished successfully (the last line for an id wins). A path that is
        no regular file (a FIFO would block the run) is a ``ConfigError``."""
        check_output_path(self.path, "progress file")
        if not self.path.exists() or self.path.stat().st_size == 0:
            return {}
        done: dict[str, L] = {}
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ConfigError(
                        f"{self.path}:{number}: progress file is corrupt (not UTF-8 text)"
                    ) from None
                if not text.strip():
                    continue
                try:
                    obj = _strict_json(text)
                except _NonFinite as exc:
                    raise ConfigError(f"{self.path}:{number}: {exc}") from None
                except json.JSONDecodeError:
                    # A run killed mid-write leaves a partial last line; anything else is damage.
                    if handle.read().strip():
                        raise ConfigError(
                            f"{self.path}:{number}: progress file is corrupt (not JSON)"
                        ) from None
                    break
                if number == 1 or (isinstance(obj, dict) and obj.get("kind") == "header"):
                    self._check_header(obj, number)
                    continue
                if not isinstance(obj, dict):
                    raise ConfigError(
                        f"{self.path}:{number}: not a progress row (a JSON object expected, "
                        f"got {type(obj).__name__})"
                    )
                try:
                    outcome = self.line_type.model_validate(obj)
                except ValidationError as exc:
                    raise ConfigError(
                        f"{self.path}:{number}: not a progress row ({error_line(exc)})"
                    ) from None
                if outcome.ok:
                    done[outcome.id] = outcome
                else:
                    done.pop(outcome.id, None)
        return done

    def _check_header(self, obj: object, number: int) -> None:
        if not isinstance(obj, dict) or obj.get("kind") != "header":
            raise ConfigError(f"{self.path}:{number}: not a guardrail progress file (no header)")
        for key in ("method", "judge"):
            if obj.get(key) != getattr(self.header, key):
                raise ConfigError(
                    f"{self.path}: was written with {key} {obj.get(key)!r}, this run uses "
                    f"{getattr(self.header, key)!r}; use another --resume-file"
                )

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            self._drop_torn_tail()
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        ensure_private(self.path)  # rows hold turn text: owner-only
        self._handle = self.path.open("a", encoding="utf-8")
        if fresh:
            self._write(self.header.model_dump(mode="json"))

    def _drop_torn_tail(self) -> None:
        """Cut a partial last record (a run killed mid-write); that row is simply rescored."""
        with self.path.open("rb+") as handle:
            data = handle.read()
            if data.endswith(b"\n"):
                return
            handle.truncate(data.rfind(b"\n") + 1)

    def append(self, outcome: L) -> None:
        self._write(outcome.model_dump(mode="json", exclude_defaults=False))

    def _write(self, obj: dict[str, Any]) -> None:
        assert self._handle is not None, "ProgressFile.open() first"
        self._handle.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class ProgressFile(LineProgress[RowOutcome]):
    """The progress file of ``guardrail eval``: one :class:`RowOutcome` a line."""

    def __init__(self, path: str | Path, header: ProgressHeader) -> None:
        super().__init__(path, header, RowOutcome)


@dataclass
class RunResult(Generic[L]):
    """Every item's outcome (resumed and new, in input order) and what this run itself did."""

    outcomes: dict[str, L] = field(default_factory=dict)
    resumed: int = 0
    scored: int = 0
    failed: int = 0
    wall_seconds: float = 0.0


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


async def _score_row(
    row: EvalRow,
    scorer: Scorer,
    threshold: float | None,
    reference: ReferenceScorer | None,
) -> RowOutcome:
    started = time.perf_counter()
    try:
        report = await scorer.score(row.question, row.answer, row.contexts, threshold=threshold)
        outcome = RowOutcome.from_report(row.id, report, time.perf_counter() - started)
        if reference is not None and row.target is not None:
            claims = [f.text for f in report.factoids]
            summary = await reference.summary(
                row.question, row.answer, row.contexts, row.target, claims=claims
            )
            outcome = outcome.model_copy(update={"reference": summary})
    except ScoringError as exc:  # the judge failed: counted, with the calls it cost
        seconds = time.perf_counter() - started
        _log.warning("row failed", row=row.id, error=_error_text(exc))
        return RowOutcome.from_failure(row.id, _error_text(exc), exc.calls, seconds)
    except Exception as exc:  # one bad row must not stop the benchmark; it is counted
        _log.warning("row failed", row=row.id, error=_error_text(exc))
        return RowOutcome(
            id=row.id, ok=False, error=_error_text(exc), seconds=time.perf_counter() - started
        )
    return outcome


#: Receives each finished item's line as soon as it is known.
Emit = Callable[[L], None]
#: Scores ``todo`` and emits one line per item, in any order: in this process
#: (:func:`local_executor`) or on a Ray cluster (:mod:`guardrail.evaluation.distributed`).
Executor = Callable[[Sequence[I], Emit[L]], Awaitable[None]]


def local_executor(fn: Callable[[I], Awaitable[L]], jobs: int) -> Executor[I, L]:
    """Score items in this process, ``jobs`` at a time."""
    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")

    async def execute(todo: Sequence[I], emit: Emit[L]) -> None:
        pending = iter(todo)

        async def worker() -> None:
            for item in pending:
                emit(await fn(item))

        await asyncio.gather(*(worker() for _ in range(min(jobs, max(1, len(todo))))))

    return execute


def row_scorer(
    scorer: Scorer, threshold: float | None, reference: ReferenceScorer | None
) -> Callable[[EvalRow], Awaitable[RowOutcome]]:
    """One row to its :class:`RowOutcome` with ``scorer`` (what every executor runs per row)."""

    async def score(row: EvalRow) -> RowOutcome:
        return await _score_row(row, scorer, threshold, reference)

    return score


async def run_items(
    items: Sequence[I],
    key: Callable[[I], str],
    execute: Executor[I, L],
    *,
    progress_file: LineProgress[L] | None = None,
    show_progress: bool = False,
    console: Console | None = None,
    on_outcome: Callable[[L], None] | None = None,
    label: str = "scoring",
) -> RunResult[L]:
    """Run ``execute`` on every item not already in ``progress_file``, with a progress bar.

    Each line is appended to the progress file as it arrives; the result's ``outcomes`` are
    keyed by ``key(item)`` and ordered as ``items``, whatever order the executor finished in.
    """
    started = time.perf_counter()
    result: RunResult[L] = RunResult()
    done = progress_file.load() if progress_file is not None else {}
    keys = [key(item) for item in items]
    for item_key in keys:
        if item_key in done:
            result.outcomes[item_key] = done[item_key]
    result.resumed = len(result.outcomes)
    todo = [
        item for item, item_key in zip(items, keys, strict=True) if item_key not in result.outcomes
    ]

    progress = Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        disable=not show_progress,
        transient=False,
    )

    if progress_file is not None:
        progress_file.open()
    try:
        with progress:
            task_id = progress.add_task(label, total=len(items), completed=result.resumed, failed=0)

            def emit(outcome: L) -> None:
                if progress_file is not None:
                    progress_file.append(outcome)
                if outcome.ok:
                    result.scored += 1
                else:
                    result.failed += 1
                result.outcomes[outcome.id] = outcome
                if on_outcome is not None:
                    on_outcome(outcome)
                progress.update(task_id, advance=1, failed=result.failed)

            await execute(todo, emit)
    finally:
        if progress_file is not None:
            progress_file.close()
        result.outcomes = {k: result.outcomes[k] for k in keys if k in result.outcomes}
    result.wall_seconds = time.perf_counter() - started
    return result


async def run_rows(
    rows: Sequence[EvalRow],
    scorer: Scorer,
    *,
    jobs: int = 1,
    threshold: float | None = None,
    progress_file: LineProgress[RowOutcome] | None = None,
    reference: ReferenceScorer | None = None,
    show_progress: bool = False,
    console: Console | None = None,
    on_outcome: Callable[[RowOutcome], None] | None = None,
    executor: Executor[EvalRow, RowOutcome] | None = None,
) -> RunResult[RowOutcome]:
    """Score every row not already in ``progress_file``, ``jobs`` rows at a time.

    ``executor`` replaces the in-process scoring (``scorer``, ``jobs``, ``threshold`` and
    ``reference`` are then the executor's business): see :func:`guardrail.evaluation.
    distributed.ray_executor`.
    """
    execute = executor or local_executor(row_scorer(scorer, threshold, reference), jobs)
    return await run_items(
        rows,
        _row_id,
        execute,
        progress_file=progress_file,
        show_progress=show_progress,
        console=console,
        on_outcome=on_outcome,
    )


def _row_id(row: EvalRow) -> str:
    return row.id
