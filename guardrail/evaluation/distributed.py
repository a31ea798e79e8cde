"""Score items on a Ray cluster: an :data:`~guardrail.evaluation.runner.Executor` for
:func:`~guardrail.evaluation.runner.run_items` (``guardrail eval --ray``, ``guardrail rescore
--ray``).

Why Ray tasks on actors, not Ray Data: the runner needs each finished item back on the driver
as soon as it is done (to append it to the resumable progress file and move the progress bar),
the items are a few thousand small JSON rows, and every worker must build its scorer once and
keep it. A pool of actors, each fed chunks of rows, does exactly that with ``ray`` core alone;
Ray Data would add pyarrow/pandas and a batch pipeline whose outputs we would collect anyway.

What goes over the wire is data, never a live object: each actor receives a
:class:`WorkerSpec` (validated settings as JSON, a threshold) and builds its scorer with
:func:`~guardrail.scoring.factory.build_scorer`, exactly as the local run does; rows go out as
plain dataclasses and lines come back as JSON dicts that the driver validates. Results are
keyed by item id and :func:`~guardrail.evaluation.runner.run_items` puts them back in input
order, so the figures equal a local run's. Scoring is deterministic per row (the scorers and
the offline judges use no random numbers; the judge runner's random backoff only spaces out
retries), so nothing depends on which process scored a row.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

from pydantic import TypeAdapter

from guardrail.evaluation.datasets import EvalRow
from guardrail.evaluation.runner import Emit, Executor, ProgressLine, RowOutcome, row_scorer
from guardrail.exceptions import ConfigError, GuardrailError
from guardrail.scoring.registry import load_named_method, settings_union
from guardrail.scoring.settings import AnyScorerSettings

I = TypeVar("I")  # noqa: E741
L = TypeVar("L", bound=ProgressLine)
L_co = TypeVar("L_co", bound=ProgressLine, covariant=True)
I_contra = TypeVar("I_contra", contravariant=True)

#: Rows sent to an actor in one call: enough to make the round trip cheap next to the
#: scoring, few enough that an interrupted run loses little and the progress bar moves.
DEFAULT_CHUNK = 8
#: Chunks queued on each actor, so it never waits for the driver between two chunks.
_IN_FLIGHT_PER_ACTOR = 2
#: Seconds one wait for a finished chunk may block the driver's helper thread.
_WAIT_S = 1.0


class WorkerSpec(Protocol[I_contra, L_co]):
    """What a worker needs to score items: plain data, built into a scorer in the worker."""

    def build(self) -> Callable[[I_contra], Awaitable[L_co]]: ...


@dataclass(frozen=True)
class EvalSpec:
    """``guardrail eval``'s per-row scoring, as data: the validated scorer settings (JSON),
    the threshold, and whether rows with a ``target`` get the reference metric."""

    settings: dict[str, Any]
    threshold: float
    reference: bool = False

    @classmethod
    def of(
        cls, settings: AnyScorerSettings, threshold: float, *, reference: bool = False
    ) -> EvalSpec:
        return cls(settings.model_dump(mode="json"), threshold, reference)

    def build(self) -> Callable[[EvalRow], Awaitable[RowOutcome]]:
        from guardrail.scoring.factory import build_scorer, judge_for

        settings = load_settings(self.settings)
        judge = judge_for(settings)
        scorer = build_scorer(settings, judges={settings.judge: judge}, threshold=self.threshold)
        reference = None
        if self.reference:
            from guardrail.scoring.reference import ReferenceMetric

            reference = ReferenceMetric(judge)
        return row_scorer(scorer, self.threshold, reference)


def load_settings(data: dict[str, Any]) -> AnyScorerSettings:
    """Scorer settings from their JSON form (the same validation a policy file gets): any
    registered method, installed plug-ins included. A worker knows a scorer registered at run
    time only if it imports the module that registers it; an installed plug-in (an entry point
    of ``guardrail.scorers``) it finds itself."""
    load_named_method(data)
    settings: AnyScorerSettings = TypeAdapter(settings_union()).validate_python(data)
    return settings


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide: ``address`` is ``auto`` (``RAY_ADDRESS`` if set, else a Ray running
    on the local host, else a new local instance) or a cluster address; ``workers`` actors (at
    most, and by default, the cluster's CPUs), one CPU each; ``jobs`` items scored at once
    inside each actor; ``chunk`` items per call."""

    address: str = "auto"
    workers: int | None = None
    jobs: int = 1
    chunk: int = DEFAULT_CHUNK

    def __post_init__(self) -> None:
        if not self.address.strip():
            raise ConfigError("--ray: give a cluster address or 'auto'")
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"--ray-workers must be >= 1, got {self.workers}")
        if self.jobs < 1:
            raise ConfigError(f"--jobs must be >= 1, got {self.jobs}")
        if self.chunk < 1:
            raise ConfigError(f"chunk must be >= 1, got {self.chunk}")


def import_ray() -> ModuleType:
    """The ``ray`` module, or a one-line error naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "--ray needs Ray, which is not installed: pip install 'guardrail-rag[ray]'"
        ) from None
    return ray


@contextmanager
def ray_session(address: str) -> Iterator[ModuleType]:
    """Ray, connected: reuse this process's connection if there is one; otherwise attach to
    ``address`` (``auto``: ``RAY_ADDRESS``, else a Ray running on the local host, else start a
    local instance on 127.0.0.1 without the dashboard) and disconnect on exit."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        if address == "auto":
            try:
                ray.init(address="auto", log_to_driver=False)
            except ConnectionError:  # none running: start one, reachable from here only
                ray.init(
                    address="local",
                    include_dashboard=False,
                    log_to_driver=False,
                    _node_ip_address="127.0.0.1",
                )
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ConfigError(f"--ray {address}: cannot connect ({_last_line(exc)})") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _last_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


class _Worker(Generic[I, L]):
    """One Ray actor: builds the scorer once from its spec, then scores chunks of items.

    An async actor (its methods are coroutines), so every chunk runs on the one event loop
    Ray keeps for it, which any loop-bound judge client needs; ``max_concurrency=1`` makes it
    take one chunk at a time, ``jobs`` items of which are scored at once.
    """

    def __init__(self, spec: WorkerSpec[I, L], jobs: int) -> None:
        self._score = spec.build()
        self._jobs = jobs

    async def run(self, items: list[I]) -> list[dict[str, Any]]:
        gate = asyncio.Semaphore(self._jobs)

        async def one(item: I) -> dict[str, Any]:
            async with gate:
                line = await self._score(item)
            return line.model_dump(mode="json")

        return list(await asyncio.gather(*(one(item) for item in items)))


def ray_executor(spec: WorkerSpec[I, L], line_type: type[L], options: RayOptions) -> Executor[I, L]:
    """An executor that scores items on Ray actors built from ``spec``."""

    async def execute(todo: Sequence[I], emit: Emit[L]) -> None:
        if not todo:
            return
        with ray_session(options.address) as ray:
            chunks = deque(
                list(todo[i : i + options.chunk]) for i in range(0, len(todo), options.chunk)
            )
            cpus = int(ray.cluster_resources().get("CPU", 0))
            if options.workers is not None and options.workers > cpus:
                # an actor that can never be placed would hold its chunks forever
                raise ConfigError(
                    f"--ray-workers {options.workers}: the Ray cluster has {cpus} CPUs"
                )
            wanted = options.workers or max(1, cpus)
            actor_class = ray.remote(num_cpus=1, max_restarts=0, max_concurrency=1)(_Worker)
            actors = [
                actor_class.remote(spec, options.jobs)
                for _ in range(min(wanted, math.ceil(len(todo) / options.chunk)))
            ]
            inflight: dict[Any, Any] = {}

            def submit(actor: Any) -> None:
                if chunks:
                    inflight[actor.run.remote(chunks.popleft())] = actor

            try:
                for _ in range(_IN_FLIGHT_PER_ACTOR):
                    for actor in actors:
                        submit(actor)
                while inflight:
                    # a short timeout, so an interrupted run never leaves a thread blocked
                    ready, _ = await asyncio.to_thread(
                        ray.wait, list(inflight), num_returns=1, timeout=_WAIT_S
                    )
                    if not ready:
                        continue
                    ref = ready[0]
                    actor = inflight.pop(ref)
                    try:
                        lines = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        raise GuardrailError(f"ray worker failed: {_last_line(exc)}") from None
                    submit(actor)
                    for data in lines:
                        emit(line_type.model_validate(data))
            finally:
                for actor in actors:
                    ray.kill(actor)

    return execute
