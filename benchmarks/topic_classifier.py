"""Measure the topic classifier on a labelled query set.

    python -m benchmarks.topic_classifier [--policy policies/default.yaml]
        [--eval tests/data/topic_eval.jsonl] [--out benchmarks/results/topic_classifier.json]
        [--embeddings none|encoder [--encoder-model DIR] [--floor F]]

Each eval line is ``{"id", "query", "topic", "also"?: [...], "hard"?: true}``: ``topic`` is the
gold label, ``also`` lists other topics the query legitimately touches, ``hard`` marks hard
negatives (general queries that share words with a sensitive topic, and the reverse).

Reported: top-1 accuracy and macro-F1 against ``topic`` (strict); lenient accuracy (top-1 in
``topic`` + ``also``); per-topic precision/recall/F1; the *protection* view that matters to the
policy — how often the applied rule (the strictest detected topic) is looser than the gold
topic's rule (under-protection) or stricter (over-protection); training time (median of
``--repeat`` fits) and mean classify latency. Prints a table; writes JSON.

``--embeddings encoder`` measures the opt-in embedding path: the policy's ``classifier`` block
with ``embeddings: encoder`` (and ``encoder_model: DIR`` when given) and without its floor, so
the encoder path's own default floor applies unless ``--floor`` sets one (the default policy's
0.35 was chosen for TF-IDF alone). Needs the ``encoder`` extra and a network with the
``embedding`` output. Training time then includes loading the network and embedding the
examples on the first fit only (later fits reuse the memo); classify latency includes the
network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from sklearn.metrics import precision_recall_fscore_support

from benchmarks import _topic_cv as topic_cv
from benchmarks._common import repo_root, write_results
from benchmarks._topic_cv import FOLDS, Tally
from guardrail.policy import Policy, PolicyEngine, load_policy
from guardrail.policy.schema import ClassifierSettings
from guardrail.topics import TopicClassifier

ROOT = repo_root()


def cross_validate(policy: Policy, folds: int = FOLDS) -> dict[str, float]:
    """k-fold CV over the policy's own examples, linear model only (keywords switched off).

    An estimate that does not touch the eval set — the one used to choose the default
    policy's confidence floor.
    """
    figures = topic_cv.cross_validate(
        policy, lambda topics: TopicClassifier.from_policy(policy, topics), folds=folds
    )[policy.classifier.confidence_floor]
    return {"folds": folds, "accuracy": figures["accuracy"], "macro_f1": figures["macro_f1"]}


def with_embeddings(
    policy: Policy, embeddings: str, encoder_model: str | None, floor: float | None
) -> Policy:
    """``policy`` with its classifier switched to ``embeddings`` (see the module docstring)."""
    block = policy.classifier.model_dump()
    if embeddings == "encoder":
        block.pop("confidence_floor")
        block["embeddings"] = "encoder"
        if encoder_model is not None:
            block["encoder_model"] = encoder_model
    if floor is not None:
        block["confidence_floor"] = floor
    classifier = ClassifierSettings.model_validate(block)
    return Policy.model_validate({**policy.model_dump(), "classifier": classifier.model_dump()})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / "policies" / "default.yaml"))
    ap.add_argument("--eval", default=str(ROOT / "tests" / "data" / "topic_eval.jsonl"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "topic_classifier.json"))
    ap.add_argument("--repeat", type=int, default=5, help="training runs to time")
    ap.add_argument("--show-errors", action="store_true", help="list misclassified queries")
    ap.add_argument(
        "--embeddings",
        choices=("none", "encoder"),
        help="override the policy's classifier.embeddings (encoder: the opt-in embedding path)",
    )
    ap.add_argument("--encoder-model", help="with --embeddings encoder: an encoder directory")
    ap.add_argument("--floor", type=float, help="override the classifier's confidence floor")
    args = ap.parse_args(argv)

    policy = load_policy(args.policy)
    if args.embeddings or args.floor is not None:
        policy = with_embeddings(
            policy, args.embeddings or policy.classifier.embeddings, args.encoder_model, args.floor
        )
    rows = [json.loads(line) for line in Path(args.eval).read_text().splitlines() if line.strip()]
    engine = PolicyEngine(policy)
    names = [t.name for t in policy.topics]

    # Wall time is what a caller waits; CPU time is less sensitive to a busy machine.
    train_times, train_cpu = [], []
    for _ in range(args.repeat):
        start, cpu = time.perf_counter(), time.process_time()
        clf = TopicClassifier.from_policy(policy)
        train_times.append(time.perf_counter() - start)
        train_cpu.append(time.process_time() - cpu)
    n_examples = sum(len(t.examples) + bool(t.description.strip()) for t in policy.topics)

    tally = Tally(names)
    errors = []
    start = time.perf_counter()
    predictions = [clf.classify(r["query"]) for r in rows]
    classify_s = (time.perf_counter() - start) / max(1, len(rows))
    for row, labels in zip(rows, predictions, strict=True):
        tally.add(engine, labels, row["topic"], row.get("also", []), row.get("hard", False))
        if labels[0].label != row["topic"]:
            errors.append(
                {
                    "id": row["id"],
                    "query": row["query"],
                    "gold": row["topic"],
                    "predicted": [(x.label, x.source, round(x.confidence, 2)) for x in labels],
                }
            )
    figures = tally.summary()
    # Rows that name their language (topic_eval_languages.jsonl): top label right per language.
    by_language: dict[str, list[int]] = {}
    for row, labels in zip(rows, predictions, strict=True):
        if "language" in row:
            tallied = by_language.setdefault(row["language"], [0, 0])
            tallied[0] += labels[0].label == row["topic"]
            tallied[1] += 1

    p, r, f, s = precision_recall_fscore_support(
        tally.gold, tally.pred, labels=names, zero_division=0
    )
    per_topic = {
        n: {
            "precision": float(p[i]),
            "recall": float(r[i]),
            "f1": float(f[i]),
            "support": int(s[i]),
        }
        for i, n in enumerate(names)
    }
    n = len(rows)
    result = {
        "policy": policy.name,
        "policy_sha256": policy.content_hash,
        "classifier": policy.classifier.model_dump(),
        "eval_file": str(Path(args.eval).resolve().relative_to(ROOT))
        if Path(args.eval).resolve().is_relative_to(ROOT)
        else args.eval,
        "n_queries": n,
        "n_training_docs": n_examples,
        **{
            key: figures[key]
            for key in (
                "accuracy",
                "macro_f1",
                "lenient_accuracy",
                "hard_case_accuracy",
                "n_hard_cases",
                "under_protection_rate",
                "over_protection_rate",
            )
        },
        "per_topic": per_topic,
        "per_language": {k: {"right": r, "n": t} for k, (r, t) in sorted(by_language.items())},
        "training_seconds_median": statistics.median(train_times),
        "training_seconds_min": min(train_times),
        "training_seconds_all": train_times,
        "training_cpu_seconds_median": statistics.median(train_cpu),
        "classify_ms_mean": classify_s * 1000,
        "cv_on_examples": cross_validate(policy),
        "errors": errors,
    }

    print(
        f"policy {policy.name} ({policy.content_hash[:12]}), {n} queries, "
        f"{n_examples} training docs, embeddings {policy.classifier.embeddings}, "
        f"floor {policy.classifier.confidence_floor}"
    )
    print(f"{'topic':<12} {'prec':>6} {'recall':>6} {'f1':>6} {'n':>5}")
    for name, m in per_topic.items():
        print(
            f"{name:<12} {m['precision']:>6.3f} {m['recall']:>6.3f} {m['f1']:>6.3f} "
            f"{m['support']:>5}"
        )
    print("-" * 40)
    for key in (
        "accuracy",
        "macro_f1",
        "lenient_accuracy",
        "hard_case_accuracy",
        "under_protection_rate",
        "over_protection_rate",
    ):
        value = result[key]
        print(f"{key:<24} {'-' if value is None else f'{value:.3f}'}")
    for language, (right, total) in sorted(by_language.items()):
        print(f"{'  right, ' + language:<24} {right}/{total}")
    cv = result["cv_on_examples"]
    print(f"{'5-fold CV on examples':<24} acc {cv['accuracy']:.3f}  macro-F1 {cv['macro_f1']:.3f}")
    print(
        f"{'training (median)':<24} {result['training_seconds_median'] * 1000:.1f} ms wall, "
        f"{result['training_cpu_seconds_median'] * 1000:.1f} ms CPU"
    )
    print(f"{'classify (mean)':<24} {result['classify_ms_mean']:.2f} ms/query")
    if args.show_errors:
        for e in errors:
            print(f"  {e['id']} gold={e['gold']:<10} pred={e['predicted']}  {e['query']}")

    print(f"wrote {write_results('topic_classifier', result, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
