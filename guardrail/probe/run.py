"""Ask the chatbot every question and judge each reply: concurrently, resumably, with a bar.

For each question: the Table 2 prompt goes to the answer function; the reply's verdict and
knowledge points are read (:mod:`~guardrail.probe.prompt`); for a verdict that differs from the
expected answer, the points become triples through the judge (:mod:`~guardrail.probe.extract`)
and the similarity oracles classify the hallucination (:mod:`~guardrail.probe.oracles`).

Each finished question is appended to a progress file (the one ``guardrail eval`` uses,
:class:`~guardrail.evaluation.runner.LineProgress`) as soon as it completes; a rerun with the
same file asks only the rest. A chatbot that raises is recorded as an error (asked again on
the next run); one returning a shape no answer function may return stops the run
(``ConfigError``).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from guardrail.evaluation.runner import LineProgress, ProgressHeader, ProgressLine
from guardrail.exceptions import ConfigError, JudgeError
from guardrail.probe.chatbot import ask
from guardrail.probe.extract import Key, TripleExtractor
from guardrail.probe.facts import FactBase
from guardrail.probe.oracles import HALLUCINATIONS, THETA, classify, conflicts, relation_synonyms
from guardrail.probe.prompt import parse_reply, render
from guardrail.probe.questions import Question, questions
from guardrail.probe.reasoning import Knowledge, derive

RULES = (
    "fact", "symmetric", "inverse", "transitive", "declared", "composite", "negation",
    "closed_world",
)  # fmt: skip


class ProbeRecord(ProgressLine):
    """One question, the chatbot's reply and the oracles' verdict (a progress-file line)."""

    question: str
    expected: str
    rule: str
    form: str
    relation: str
    triple: list[str]
    derivation: list[str] = Field(default_factory=list)
    reply: str = ""
    verdict: str | None = None
    note: str = ""
    knowledge: list[str] = Field(default_factory=list)
    knowledge_triples: list[list[list[str]]] = Field(default_factory=list)
    outcome: str | None = None
    node_similarity: float | None = None
    edge_similarity: float | None = None
    conflicts: list[int] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def hallucination(self) -> bool:
        return self.outcome in HALLUCINATIONS


def question_id(question: Question) -> str:
    """Stable across runs: a changed question or expected answer is a new question."""
    text = f"{question.text}\0{question.expected}\0{'|'.join(question.triple)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: Deepest rule chain ``--max-depth`` allows (each level multiplies the derivations).
MAX_DEPTH = 10


def check_depth(max_depth: int) -> int:
    """``max_depth``, when it allows at least one rule step; else ``ConfigError``."""
    if not 1 <= max_depth <= MAX_DEPTH:
        raise ConfigError(f"--max-depth must be between 1 and {MAX_DEPTH}, got {max_depth}")
    return max_depth


def sample(asked: Sequence[Question], limit: int, seed: int = 0) -> list[Question]:
    """``limit`` of ``asked``, spread across rule types: each type gets an equal share (a type
    with fewer questions gives its unused share to the others), chosen at random with ``seed``;
    the result keeps the questions' order, and a larger ``limit`` (same seed) asks every
    question a smaller one did, so a resumed run with a larger limit asks only the rest."""
    if limit >= len(asked):
        return list(asked)
    groups: dict[str, list[int]] = {}
    for index, question in enumerate(asked):
        groups.setdefault(question.rule, []).append(index)
    quota = dict.fromkeys(groups, 0)
    left = limit
    while left:
        open_ = [r for r in groups if quota[r] < len(groups[r])]
        share = max(1, left // len(open_))
        for rule in open_:
            take = min(share, len(groups[rule]) - quota[rule], left)
            quota[rule] += take
            left -= take
            if not left:
                break
    chosen: list[int] = []
    for rule, items in groups.items():
        order = list(items)
        random.Random(f"{seed}:{rule}").shuffle(order)  # one order per type: samples nest
        chosen += order[: quota[rule]]
    return [asked[i] for i in sorted(chosen)]


def plan(
    base: FactBase,
    *,
    rules: Sequence[str] | None = None,
    limit: int | None = None,
    max_depth: int = 3,
    knowledge: Knowledge | None = None,
    seed: int = 0,
) -> list[Question]:
    """The questions to ask: every rule's (or only ``rules``'); with ``limit``, a sample of
    that many spread across rule types (:func:`sample`, seeded with ``seed``).
    ``knowledge``: what :func:`~guardrail.probe.reasoning.derive` gave for ``base``, when
    already at hand."""
    if rules is not None:
        unknown = sorted(set(rules) - set(RULES))
        if unknown:
            raise ConfigError(f"--rules: unknown rule {unknown[0]!r}; one of {', '.join(RULES)}")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {limit}")
    check_depth(max_depth)
    asked = questions(base, knowledge or derive(base, max_depth=max_depth))
    if rules is not None:
        asked = [q for q in asked if q.rule in rules]
    return sample(asked, limit, seed) if limit is not None else asked


def _blank(question: Question) -> ProbeRecord:
    s, relation, o = question.triple
    return ProbeRecord(
        id=question_id(question),
        ok=True,
        question=question.text,
        expected=question.expected,
        rule=question.rule,
        form=question.form,
        relation=relation,
        triple=[s, relation, o],
        derivation=question.derivation.explain(),
    )


def truth_triples(question: Question) -> list[Key]:
    """The ground-truth structure's triples: the fact-file triples the question rests on and
    the triple it asks about."""
    return list(dict.fromkeys([*question.derivation.sources(), question.triple]))


@dataclass
class ProbeRun:
    """Every question's record (resumed and new, in question order) and what this run did."""

    records: list[ProbeRecord] = field(default_factory=list)
    resumed: int = 0
    asked: int = 0
    failed: int = 0
    wall_seconds: float = 0.0


class Prober:
    """Asks questions of one answer function and judges the replies."""

    def __init__(
        self,
        chatbot: Callable[..., Any],
        extractor: TripleExtractor,
        *,
        theta_nodes: float = THETA,
        theta_edges: float = THETA,
        threads: bool = False,
    ) -> None:
        self.chatbot = chatbot
        self.extractor = extractor
        self.synonyms: Mapping[str, str] = relation_synonyms(extractor.relations)
        self.theta_nodes = theta_nodes
        self.theta_edges = theta_edges
        self.threads = threads

    async def judge(self, question: Question, reply_text: str, record: ProbeRecord) -> ProbeRecord:
        """Read and classify one reply (Algorithm 3)."""
        reply = parse_reply(reply_text, question.text)
        update: dict[str, Any] = {
            "reply": reply_text,
            "verdict": reply.verdict,
            "knowledge": reply.knowledge,
            "note": reply.note,
        }
        points: list[list[Key]] = []
        suspicious = reply.verdict not in (None, "refused", question.expected)
        if suspicious and reply.knowledge:
            points = await self.extractor.extract(reply.knowledge)
        truth = truth_triples(question)
        judgement = classify(
            reply,
            question.expected,
            [t for triples in points for t in triples],
            truth,
            theta_nodes=self.theta_nodes,
            theta_edges=self.theta_edges,
            synonyms=self.synonyms,
        )
        update.update(
            outcome=judgement.outcome,
            node_similarity=judgement.node_similarity,
            edge_similarity=judgement.edge_similarity,
            knowledge_triples=[[list(t) for t in triples] for triples in points],
            conflicts=conflicts(points, truth, self.synonyms) if points else [],
        )
        return record.model_copy(update=update)

    async def one(self, question: Question) -> ProbeRecord:
        """Ask ``question`` and judge the reply; a raising chatbot gives an error record."""
        record = _blank(question)
        started = time.perf_counter()
        try:
            text = await ask(self.chatbot, render(question.text), in_thread=self.threads)
        except ConfigError:
            raise  # the function returned a shape no answer function may: stop, exit 2
        except Exception as exc:  # one failing call must not stop the probe; it is counted
            error = f"{type(exc).__name__}: {exc}"[:500]
            return record.model_copy(update={"ok": False, "error": error, "outcome": "error"})
        try:
            judged = await self.judge(question, text, record)
        except JudgeError as exc:  # reading the reply failed: asked again on the next run
            error = f"judge: {type(exc).__name__}: {exc}"[:500]
            update = {"ok": False, "error": error, "outcome": "error", "reply": text}
            return record.model_copy(update=update)
        return judged.model_copy(update={"seconds": time.perf_counter() - started})

    async def run(
        self,
        asked: Sequence[Question],
        *,
        jobs: int = 1,
        progress_file: LineProgress[ProbeRecord] | None = None,
        show_progress: bool = False,
        console: Console | None = None,
    ) -> ProbeRun:
        """Ask every question not already in ``progress_file``, ``jobs`` at a time."""
        if jobs < 1:
            raise ConfigError(f"--jobs must be >= 1, got {jobs}")
        started = time.perf_counter()
        run = ProbeRun()
        done = progress_file.load() if progress_file is not None else {}
        ids = [question_id(q) for q in asked]
        finished: dict[str, ProbeRecord] = {i: done[i] for i in ids if i in done}
        run.resumed = len(finished)
        pending = iter([(i, q) for i, q in zip(ids, asked, strict=True) if i not in finished])
        hallucinations = sum(1 for r in finished.values() if r.hallucination)
        bar = Progress(
            TextColumn("[bold]probing"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("hallucinations {task.fields[found]}  errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            disable=not show_progress,
        )

        async def worker(task: Any) -> None:
            nonlocal hallucinations
            for qid, question in pending:
                record = await self.one(question)
                if progress_file is not None:
                    progress_file.append(record)
                finished[qid] = record
                run.asked += 1
                run.failed += 0 if record.ok else 1
                hallucinations += 1 if record.hallucination else 0
                bar.update(task, advance=1, found=hallucinations, errors=run.failed)

        if progress_file is not None:
            progress_file.open()
        try:
            with bar:
                task = bar.add_task(
                    "probing", total=len(asked), completed=run.resumed, found=hallucinations,
                    errors=0,
                )  # fmt: skip
                workers = min(jobs, max(1, len(asked) - run.resumed))
                await asyncio.gather(*(worker(task) for _ in range(workers)))
        finally:
            if progress_file is not None:
                progress_file.close()
        run.records = [finished[i] for i in ids if i in finished]
        run.wall_seconds = time.perf_counter() - started
        return run


def progress_file(path: Any, chatbot: str, judge: str) -> LineProgress[ProbeRecord]:
    """The probe's progress file; resuming with another chatbot or judge is refused."""
    header = ProgressHeader(method=f"probe {chatbot}", judge=judge)
    return LineProgress(path, header, ProbeRecord)
