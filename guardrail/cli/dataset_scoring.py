"""Score a labelled dataset for ``eval`` and ``calibrate``: rows, judge, scorer, run.

The one place the dataset commands build what they score with from their flags (see
:mod:`guardrail.cli.options`) and run it, in this process or on a Ray cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from rich.console import Console

from guardrail.cli.options import flag_threshold, ray_options, scorer_settings
from guardrail.evaluation.datasets import EvalRow, load_rows
from guardrail.evaluation.distributed import EvalSpec, ray_executor
from guardrail.evaluation.provenance import Selection, in_sample_note
from guardrail.evaluation.runner import (
    ProgressFile,
    ProgressHeader,
    RowOutcome,
    RunResult,
    run_rows,
)
from guardrail.judges.base import Judge
from guardrail.localize.model import TokenLocalizer
from guardrail.scoring.base import Scorer
from guardrail.scoring.factory import build_scorer, judge_for
from guardrail.scoring.settings import AnyScorerSettings


def judge_label(judge: Judge, settings: AnyScorerSettings) -> str:
    """The judge's name plus any model files used, for the progress header and the output."""
    label = judge.name
    if settings.judge_model is not None:
        label += f" (verifier {settings.judge_model})"
    if settings.localizer_model is not None:
        label += f" (localizer {settings.localizer_model})"
    return label


def provenance_notes(
    rows: list[EvalRow], judge: Judge, scorer: Scorer, args: argparse.Namespace
) -> list[str]:
    """Warnings for every fitted model here that was trained on the rows being evaluated."""
    sel = Selection(
        dataset=args.dataset,
        rows=len(rows),
        filtered=any(v is not None for v in (args.task, args.limit, args.shuffle)),
        holdout_frac=args.holdout_frac,
        seed=args.seed,
    )
    from guardrail.judges.local import LocalJudge

    notes = []
    if isinstance(judge, LocalJudge):
        for what, meta in judge.verifier.fitted():
            notes.append(in_sample_note(what, meta, sel))
    localizer = getattr(scorer, "localizer", None)
    if isinstance(localizer, TokenLocalizer):
        notes.append(in_sample_note("word localizer (span figures)", localizer.meta, sel))
    return [n for n in notes if n]


def load_and_score(
    args: argparse.Namespace, console: Console
) -> tuple[list[EvalRow], RunResult[RowOutcome], str, AnyScorerSettings]:
    """Load the rows, build judge and scorer, score everything not already in the resume file."""
    settings = scorer_settings(args)
    threshold, _source = flag_threshold(args)
    options = ray_options(args)
    rows = load_rows(args.dataset, task=args.task, limit=args.limit, shuffle_seed=args.shuffle)
    judge = judge_for(settings)
    scorer = build_scorer(settings, judges={settings.judge: judge}, threshold=threshold)
    label = judge_label(judge, settings)
    for note in provenance_notes(rows, judge, scorer, args):
        console.print(f"[yellow]note:[/yellow] {note}")
    progress = None
    if args.resume_file is not None:
        header = ProgressHeader(method=settings.method, judge=label)
        progress = ProgressFile(args.resume_file, header)
    reference = None
    if any(r.target is not None for r in rows):
        from guardrail.scoring.reference import ReferenceMetric

        reference = ReferenceMetric(judge)
    show = not args.no_progress and sys.stderr.isatty()
    executor = None
    if options is not None:
        spec = EvalSpec.of(settings, threshold, reference=reference is not None)
        executor = ray_executor(spec, RowOutcome, options)
    result = asyncio.run(
        run_rows(
            rows,
            scorer,
            jobs=args.jobs,
            threshold=threshold,
            progress_file=progress,
            reference=reference,
            show_progress=show,
            executor=executor,
        )
    )
    if result.resumed:
        console.print(f"resumed {result.resumed} rows from {args.resume_file}")
    return rows, result, label, settings
