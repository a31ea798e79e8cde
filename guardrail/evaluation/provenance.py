"""Was a model trained on the rows being evaluated? Read it from the model file's ``meta``.

``scripts/train_verifier.py`` and ``scripts/train_localizer.py`` record the file they read
(``meta.data``, e.g. ``"ragtruth/dev.jsonl"``) and, with ``--holdout-frac F --split-seed S``,
that they kept only the *tune* side of :func:`~guardrail.evaluation.datasets.split_by_group`
(``meta.split``). ``guardrail eval`` uses this to say which of its figures are in-sample:

* trained on another file: nothing to say;
* trained on this file without a split: every figure that model touches is in-sample;
* trained on the tune side of the split that ``eval --holdout-frac F --seed S`` makes on the
  same rows: the holdout block's report rows were never seen; the figures over all rows are
  still partly in-sample. Any other filter (``--task``, ``--limit``, ``--shuffle``) changes
  the split, so then the report side may overlap the training rows.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardrail.evaluation.datasets import EvalRow, load_rows, split_by_group
from guardrail.exceptions import ConfigError


@dataclass(frozen=True)
class Selection:
    """How ``guardrail eval`` chose its rows and its holdout split."""

    dataset: Path
    rows: int
    filtered: bool
    holdout_frac: float | None
    seed: int


def data_name(path: Path) -> str:
    """The name training scripts record for a data file: ``parent/name``."""
    return f"{path.parent.name}/{path.name}"


def training_split(tune_frac: float, seed: int, rows: int) -> dict[str, Any]:
    """The ``meta.split`` a training script records when it kept only the tune side."""
    return {"tune_frac": tune_frac, "seed": seed, "rows_before_split": rows, "side": "tune"}


def training_rows(
    data: Path, holdout_frac: float | None, split_seed: int
) -> tuple[list[EvalRow], dict[str, Any] | None]:
    """The rows a training script fits on, and the ``meta.split`` to record (None: all rows).

    ``ConfigError`` for a missing or malformed file or an impossible split.
    """
    if not data.is_file():
        raise ConfigError(f"data not found: {data}")
    rows = load_rows(data)
    if holdout_frac is None:
        return rows, None
    tune, _ = split_by_group(rows, holdout_frac, seed=split_seed)
    return tune, training_split(holdout_frac, split_seed, len(rows))


def add_split_args(parser: argparse.ArgumentParser, default: Path | None = None) -> None:
    """The training scripts' ``--data``, ``--holdout-frac`` and ``--split-seed`` options."""
    parser.add_argument("--data", type=Path, required=default is None, default=default)
    parser.add_argument(
        "--holdout-frac",
        type=float,
        default=None,
        metavar="F",
        help="train only on the tune side of the split `guardrail eval --holdout-frac F "
        "--seed S` makes, so its report side stays unseen",
    )
    parser.add_argument("--split-seed", type=int, default=0, metavar="S", help="seed of that split")


def rows_for_training(args: argparse.Namespace) -> tuple[list[EvalRow], dict[str, Any] | None]:
    """:func:`training_rows` for a training script: says what it kept; exit 2 on bad input."""
    try:
        rows, split = training_rows(args.data, args.holdout_frac, args.split_seed)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if split is not None:
        print(
            f"training on {len(rows)} of {split['rows_before_split']} rows (the tune side of "
            f"--holdout-frac {args.holdout_frac} --seed {args.split_seed})"
        )
    return rows, split


def in_sample_note(what: str, meta: Mapping[str, Any], sel: Selection) -> str | None:
    """A one-line warning when ``what`` (e.g. "verifier") was trained on these rows, else None."""
    if meta.get("data") != data_name(sel.dataset):
        return None
    split = meta.get("split")
    if not isinstance(split, Mapping):
        return (
            f"the {what} model was trained on {meta['data']}: figures it affects are in-sample "
            "(train it with --holdout-frac F --split-seed S and evaluate with --holdout-frac F "
            "--seed S to read held-out figures)"
        )
    same = (
        not sel.filtered
        and sel.holdout_frac is not None
        and split.get("tune_frac") == sel.holdout_frac
        and split.get("seed") == sel.seed
        and split.get("rows_before_split") == sel.rows
    )
    if same:
        return (
            f"the {what} model was trained on the tune side of this split: the holdout block "
            "reports rows it never saw; the figures over all rows are partly in-sample"
        )
    return (
        f"the {what} model was trained on part of {meta['data']} (tune side of "
        f"--holdout-frac {split.get('tune_frac')} --seed {split.get('seed')} over "
        f"{split.get('rows_before_split')} rows); this run's rows or split differ, so any "
        "figure may include rows it was trained on"
    )
