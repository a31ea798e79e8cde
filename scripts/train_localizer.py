"""Train the word-level span localizer and write guardrail/localize/token_model.json.

Data recipe: RAGTruth dev rows from ../shared/data/ragtruth/dev.jsonl (never copied into the
repository). Every word of every answer is featurized against its own question and contexts
(:mod:`guardrail.localize.features`) and labelled 1 when it overlaps a human-marked hallucinated
span. A logistic regression is fitted on all words; the keep threshold maximizes grouped
out-of-fold span F1 (folds by source document). See ``guardrail/training/localizer.py``.

    python scripts/train_localizer.py [--data ../shared/data/ragtruth/dev.jsonl]
        [--out guardrail/localize/token_model.json]

Figures on rows the model did not see come from ``benchmarks/trained_verifier_ragtruth.py``
(cross-fitted inside the real scorers), not from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from guardrail.evaluation.provenance import (
    add_split_args,
    data_name,
    rows_for_training,
)
from guardrail.training.localizer import train

ROOT = Path(__file__).resolve().parents[1]

#: The labelled-data folder: ``$GUARDRAIL_SHARED_DATA``, else ``../shared/data``.
DEFAULT_DATA = (
    Path(os.environ.get("GUARDRAIL_SHARED_DATA", ROOT.parent / "shared" / "data"))
    / "ragtruth"
    / "dev.jsonl"
)
DEFAULT_OUT = ROOT / "guardrail" / "localize" / "token_model.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_args(ap, DEFAULT_DATA)
    ap.add_argument("--folds", type=int, default=5, help="grouped folds for the threshold")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--c", type=float, default=1.0, help="inverse regularization")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    started = time.perf_counter()
    rows, split = rows_for_training(args)
    data = train(rows, folds=args.folds, seed=args.seed, c=args.c)
    data["meta"]["data"] = data_name(args.data)
    if split is not None:
        data["meta"]["split"] = split
    data["meta"]["recipe"] = "scripts/train_localizer.py (guardrail.training.localizer)"
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    meta = data["meta"]
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1024:.1f} KiB) in "
        f"{time.perf_counter() - started:.0f} s from {meta['answers']} answers, "
        f"{meta['words']} words ({meta['positive']} in hallucinated spans); threshold "
        f"{data['threshold']} (grouped out-of-fold span F1 {meta['out_of_fold_span_f1']}, "
        "no factoid gate)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
