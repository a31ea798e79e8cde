"""Train the offline judge's verifier and write guardrail/judges/local/verifier.json.

Data recipe: RAGTruth dev rows from ../shared/data/ragtruth/dev.jsonl (never copied into the
repository). Every answer is decomposed and mutated exactly as MetaRAG does with the offline
judge; each factoid is labelled unsupported when its aligned span overlaps a human-labelled
hallucinated span (>= 3 characters), supported otherwise; features come from
``LocalJudge.features`` (the scoring-time code path). Thresholds are chosen on out-of-fold
predictions, folds grouped by source document (``meta.source_id``). See
``guardrail/training/verifier.py`` for the full recipe.

    python scripts/train_verifier.py [--data ../shared/data/ragtruth/dev.jsonl]
        [--kind logistic|trees] [--out guardrail/judges/local/verifier.json]

The figures a model trained this way reaches on rows it did not see come from
``benchmarks/trained_verifier_ragtruth.py`` (cross-fitted), not from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from guardrail.evaluation.provenance import (
    add_split_args,
    data_name,
    rows_for_training,
)
from guardrail.training.verifier import MAX_FLAGGED, PER_KIND, collect, finite, train

ROOT = Path(__file__).resolve().parents[1]

#: The labelled-data folder: ``$GUARDRAIL_SHARED_DATA``, else ``../shared/data``.
DEFAULT_DATA = (
    Path(os.environ.get("GUARDRAIL_SHARED_DATA", ROOT.parent / "shared" / "data"))
    / "ragtruth"
    / "dev.jsonl"
)
DEFAULT_OUT = ROOT / "guardrail" / "judges" / "local" / "verifier.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_args(ap, DEFAULT_DATA)
    ap.add_argument("--kind", choices=("logistic", "trees"), default="logistic")
    ap.add_argument("--folds", type=int, default=5, help="grouped folds for threshold tuning")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--max-flagged",
        type=float,
        default=MAX_FLAGGED,
        help="largest share of answers the thresholds may flag out of fold (default: no limit)",
    )
    ap.add_argument(
        "--per-kind",
        action=argparse.BooleanOptionalAction,
        default=PER_KIND,
        help="separate cut-offs per kind of context (JSON record, passages, prose)",
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()

    started = time.perf_counter()
    rows, split = rows_for_training(args)
    records = collect(rows)
    print(f"collected {sum(len(r.factoids) for r in records)} factoids from {len(rows)} rows")
    data = train(
        records,
        args.kind,
        folds=args.folds,
        seed=args.seed,
        max_flagged=args.max_flagged,
        per_kind=args.per_kind,
    )
    data["meta"]["data"] = data_name(args.data)
    if split is not None:
        data["meta"]["split"] = split
    data["meta"]["recipe"] = "scripts/train_verifier.py (guardrail.training.verifier)"
    if not finite(data):
        print("training produced a non-finite number; model not written", file=sys.stderr)
        return 1
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    size = args.out.stat().st_size
    print(
        f"wrote {args.out} ({size / 1024:.0f} KiB, {args.kind}) in "
        f"{time.perf_counter() - started:.0f} s; thresholds {data['thresholds']}; "
        f"out-of-fold {data['meta']['out_of_fold']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
