"""``guardrail calibrate --from-reviews DB --policy IN.yaml``: per-topic thresholds proposed
from reviewers' resolved cases, shown as a diff of the policy file.

Nothing is applied: the diff is printed, and ``--out OUT.yaml`` writes the proposed copy (the
input is never overwritten). A topic with too few labels is refused with the count it needs;
the command exits 1 when every topic was refused. See :mod:`guardrail.evaluation.reviews`
for what reviews can and cannot tell.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError


def run_from_reviews(args: argparse.Namespace) -> int:
    from guardrail.evaluation.calibrate import write_policy_threshold
    from guardrail.evaluation.reviews import propose_thresholds, review_labels
    from guardrail.policy import load_policy
    from guardrail.queues.review_queue import ReviewQueue
    from guardrail.storage import require_store

    if args.out is not None and args.out.resolve() == args.policy.resolve():
        raise ConfigError("--out must differ from --policy (the input is never overwritten)")
    policy = load_policy(args.policy)
    queue = ReviewQueue(require_store(args.from_reviews, "review database", "--from-reviews"))
    source = review_labels(queue, audit=args.audit)
    current = {t.name: t.threshold for t in policy.topics}
    if args.topic is not None:
        if args.topic not in current:
            raise ConfigError(f"{args.policy} has no topic {args.topic!r}")
        current = {args.topic: current[args.topic]}
    proposals = propose_thresholds(
        source.labels,
        current,
        min_labels=args.min_labels,
        min_each=args.min_each,
        folds=args.folds,
        miss_cost=args.miss_cost,
        seed=args.seed,
    )
    print(f"{len(source.labels)} labels from resolved cases in {args.from_reviews}", end="")
    skipped = ", ".join(f"{n} {why}" for why, n in source.skipped.items())
    print(f" (left out: {skipped})" if skipped else "")
    original = args.policy.read_text(encoding="utf-8")
    changed = [p for p in proposals if p.threshold is not None and p.threshold != p.current]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "policy.yaml"
        shutil.copy(args.policy, work)
        for p in proposals:
            if p.refused is not None:
                print(f"{p.topic}: REFUSED, {p.refused}")
                continue
            h = p.held_out
            print(
                f"{p.topic}: {p.current:g} -> {p.threshold:g} from {p.labels} labels "
                f"({p.confirmed} confirmed, {p.overturned} overturned); held out "
                f"({h['folds']}-fold): false flags {h['at_current']['false_flags']} -> "
                f"{h['at_proposed']['false_flags']}, missed {h['at_current']['missed']} -> "
                f"{h['at_proposed']['missed']}, error rate {h['error_rate_current']:.3f} -> "
                f"{h['error_rate_proposed']:.3f}"
            )
            print(f"  {p.note}")
            if p in changed:
                note = (
                    f"threshold of {p.topic} {p.current:g} -> {p.threshold:g} proposed by "
                    f"`guardrail calibrate --from-reviews` from {p.labels} reviewed cases; "
                    f"held-out error rate {h['error_rate_current']:.3f} -> "
                    f"{h['error_rate_proposed']:.3f}"
                )
                staged = Path(tmp) / "next.yaml"
                assert p.threshold is not None
                write_policy_threshold(work, staged, p.threshold, topic=p.topic, note=note)
                staged.replace(work)
        proposed = work.read_text(encoding="utf-8")
    diff = difflib.unified_diff(
        original.splitlines(keepends=True),
        proposed.splitlines(keepends=True),
        fromfile=str(args.policy),
        tofile=str(args.out or "proposed"),
    )
    text = "".join(diff)
    print(text if text else "no threshold change proposed")
    if args.out is not None and changed:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(proposed, encoding="utf-8")
        print(f"wrote {args.out} (not applied: review it and replace the policy yourself)")
    if args.json_out is not None:
        out: dict[str, Any] = {
            "review_db": str(args.from_reviews),
            "labels": len(source.labels),
            "skipped": source.skipped,
            "topics": [vars(p) for p in proposals],
        }
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 1 if all(p.refused is not None for p in proposals) else 0


def add_review_flags(p: argparse.ArgumentParser) -> None:
    """The flags of ``--from-reviews`` mode."""
    from guardrail.storage import parse_target

    p.add_argument(
        "--from-reviews",
        type=parse_target,
        default=None,
        metavar="DB",
        help="propose per-topic thresholds from the resolved cases of this review database "
        "(SQLite file or postgresql:// URL) instead of scoring a dataset",
    )
    p.add_argument(
        "--audit",
        type=parse_target,
        default=None,
        metavar="PATH|URL",
        help="with --from-reviews: take each case's score from its audit record",
    )
    p.add_argument("--min-labels", type=int, default=30, metavar="N", help="(default: 30)")
    p.add_argument(
        "--min-each", type=int, default=5, metavar="N", help="confirmed labels needed (default 5)"
    )
    p.add_argument("--folds", type=int, default=5, metavar="K", help="cross-validation folds")
    p.add_argument(
        "--miss-cost",
        type=float,
        default=1.0,
        metavar="C",
        help="a missed hallucination costs C false flags (default: 1)",
    )
