"""Calibrate the cascade's screen and write guardrail/scoring/cascade.json.

Recipe: ``guardrail/training/cascade.py`` (out-of-fold risks from the packaged verifier's
recipe, folds grouped by source document; the loosest cut-off whose settled factoids overlap a
gold hallucinated span at most ``--fit-target`` of the time; cross-validated figures recorded
in the file). Data: RAGTruth dev from ../shared/data (never copied into the repository).

    python scripts/calibrate_cascade.py [--fit-target 0.03] [--out guardrail/scoring/cascade.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from guardrail.evaluation.datasets import load_rows
from guardrail.judges.local.trained import VerifierModel
from guardrail.scoring.cascade import CASCADE_FORMAT
from guardrail.training.cascade import (
    choose_cutoff,
    cross_validate,
    screened_factoids,
)
from guardrail.training.verifier import collect, out_of_fold

ROOT = Path(__file__).resolve().parents[1]

#: The labelled-data folder: ``$GUARDRAIL_SHARED_DATA``, else ``../shared/data``.
DEFAULT_DATA = (
    Path(os.environ.get("GUARDRAIL_SHARED_DATA", ROOT.parent / "shared" / "data"))
    / "ragtruth"
    / "dev.jsonl"
)
DEFAULT_OUT = ROOT / "guardrail" / "scoring" / "cascade.json"
VERIFIER = ROOT / "guardrail" / "judges" / "local" / "verifier.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--fit-target", type=float, default=0.03)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    if not args.data.is_file():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    packaged = VerifierModel.load()
    meta = json.loads(VERIFIER.read_text(encoding="utf-8"))["meta"]
    records = collect(load_rows(args.data))
    oof = out_of_fold(
        records, "logistic", folds=args.folds, seed=int(meta["seed"]), c=float(meta["c"])
    )
    items = screened_factoids(oof, packaged.decision)
    cv = cross_validate(items, fit_target=args.fit_target, folds=args.folds, seed=args.seed)
    cutoff = choose_cutoff(items, args.fit_target)
    data = {
        "format": CASCADE_FORMAT,
        "cutoff": round(cutoff, 6),
        "meta": {
            "data": "ragtruth/dev.jsonl",
            "fit_target": args.fit_target,
            "recipe": "scripts/calibrate_cascade.py (guardrail.training.cascade)",
            "verifier_sha256": hashlib.sha256(VERIFIER.read_bytes()).hexdigest(),
            "cross_validated": cv,
        },
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    overall = cv["overall"]
    print(
        f"wrote {args.out} in {time.perf_counter() - started:.0f} s: cut-off {cutoff:.4f}; "
        f"cross-validated: {overall['settled_share']:.1%} of {overall['factoids']} factoids "
        f"settled offline, {overall['error_rate']:.2%} of them overlap a gold hallucinated span "
        f"(base rate {overall['hallucinated_share']:.1%})"
    )
    for task, fig in cv["tasks"].items():
        print(
            f"  {task}: settled {fig['settled_share']:.1%} of {fig['factoids']}, "
            f"error {fig['error_rate']:.2%} (base {fig['hallucinated_share']:.1%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
