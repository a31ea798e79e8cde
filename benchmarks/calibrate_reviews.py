"""``calibrate --from-reviews`` on generated review histories whose true thresholds are known.

Usage::

    python -m benchmarks.calibrate_reviews [--half dev|test|both] [--dir DIR] [--out FILE.json]

Each scenario writes a history through the real writers (:func:`guardrail.report.
write_history`, the default policy, 2,000 turns): a turn's answer is hallucinated when its
score is at or above its topic's *true* threshold, each label flipped with probability
``noise``, and simulated reviewers resolve the escalations accordingly. The proposal is then
compared with the truth (``|proposed - true|``, target 0.05) and its cross-validated held-out
error rate is printed. The ``dev`` half is what the method was developed on; the ``test``
half was written before its first run and is the one to report.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._common import repo_root, write_results

#: (seed, {topic: true threshold}, label noise)
DEV = [(11, {"healthcare": 0.45, "labour": 0.55, "asylum": 0.3}, 0.0)]
TEST = [
    (21, {"healthcare": 0.40, "labour": 0.60, "asylum": 0.35}, 0.05),
    (22, {"healthcare": 0.50, "labour": 0.38, "asylum": 0.30}, 0.05),
    (23, {"healthcare": 0.62, "labour": 0.45, "asylum": 0.52}, 0.05),
    (24, {"healthcare": 0.35, "labour": 0.70, "asylum": 0.42}, 0.10),
]


def run_scenario(folder: Path, seed: int, truth: dict[str, float], noise: float) -> list[Any]:
    from guardrail.audit import AuditLog
    from guardrail.evaluation.reviews import propose_thresholds, review_labels
    from guardrail.policy import load_policy
    from guardrail.queues import ReviewQueue
    from guardrail.report import write_history

    policy = load_policy(repo_root() / "policies" / "default.yaml")
    folder.mkdir(parents=True, exist_ok=True)
    queue = ReviewQueue(folder / "review.sqlite3")
    audit = folder / "audit.jsonl"
    write_history(AuditLog(audit, fsync=False), policy, turns=2000, queue=queue,
                  true_threshold=truth, label_noise=noise, seed=seed)  # fmt: skip
    labels = review_labels(queue, audit=audit).labels
    current = {t: th for t, th in ((t.name, t.threshold) for t in policy.topics) if t in truth}
    rows = []
    for p in propose_thresholds(labels, current):
        rows.append(
            {
                "seed": seed,
                "noise": noise,
                "topic": p.topic,
                "true": truth[p.topic],
                "proposed": p.threshold,
                "abs_error": None
                if p.threshold is None
                else round(abs(p.threshold - truth[p.topic]), 3),
                "labels": p.labels,
                "refused": p.refused,
                "held_out": p.held_out,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/calibrate_reviews.json")
    )
    args = parser.parse_args()
    halves = {"dev": DEV, "test": TEST}
    chosen = halves if args.half == "both" else {args.half: halves[args.half]}
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for half, scenarios in chosen.items():
            rows = []
            for seed, truth, noise in scenarios:
                rows += run_scenario(Path(tmp) / f"{half}-{seed}", seed, truth, noise)
            result[half] = rows
    header = (f"{'half':<5} {'seed':>4} {'noise':>5} {'topic':<11} {'true':>5} {'proposed':>8} "
              f"{'|err|':>6} {'labels':>6} {'held-out error now -> proposed':>32}")  # fmt: skip
    print(header)
    print("-" * len(header))
    for half, rows in result.items():
        for r in rows:
            h = r["held_out"]
            now, new = (h["error_rate_current"], h["error_rate_proposed"]) if h else (0, 0)
            cv = f"{now:.3f} -> {new:.3f}" if h else r["refused"]
            prop = "—" if r["proposed"] is None else f"{r['proposed']:.3f}"
            err = "—" if r["abs_error"] is None else f"{r['abs_error']:.3f}"
            print(f"{half:<5} {r['seed']:>4} {r['noise']:>5.2f} {r['topic']:<11} {r['true']:>5.2f} "
                  f"{prop:>8} {err:>6} {r['labels']:>6} {cv:>32}")  # fmt: skip
        errs = [r["abs_error"] for r in rows if r["abs_error"] is not None]
        if errs:
            within = sum(1 for e in errs if e <= 0.05)
            print(f"{half}: {within}/{len(errs)} within 0.05, max |err| {max(errs):.3f}")
    print(f"wrote {write_results('calibrate_reviews', result, args.out)}")


if __name__ == "__main__":
    main()
