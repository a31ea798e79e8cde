"""The encoder verifier (``local:encoder``) on RAGTruth dev: cross-fitted quality, speed, memory.

Protocol (no figure comes from rows a fitted part saw):

* ``scripts/train_encoder.py`` leaves ``--folds-dir`` (default ``build/encoder_folds``): its
  fold networks (each fine-tuned without the rows of its fold, grouped by source document) and
  ``oof.json``, every row's factoid probabilities from the network that did not see it.
* Rows are split into ``--folds`` folds grouped by source document (``meta.source_id``). For
  each fold, the stack (the trained verifier's recipe over lexical features + out-of-fold
  network probabilities, thresholds chosen inside), the trained verifier alone (same recipe,
  lexical features only: the comparison) and the word localizer are fitted on the other folds;
  the held-out fold is scored by the real scorers — ``MetaRAG`` and ``RT4Chart`` with their
  default settings (threshold 0.5) — through :func:`guardrail.evaluation.runner.run_rows`, as
  ``guardrail eval`` does, each row with the fold network that did not see it.
* One leak is left, and said: the stack of a fold is fitted on probabilities that the *other*
  network produced, and that network was fine-tuned partly on the held-out fold's rows. The
  stack never sees a held-out label, but its trust in the network is learnt from a network
  that did; the usual stacking compromise (a fully nested run would need a network per pair
  of folds).
* **Operating point at recall >= 0.85**: for each fold, the highest MetaRAG score threshold
  whose answer recall on the *other* folds' held-out scores is >= 0.85 is applied to the fold;
  the held-out recall, precision and share of answers flagged are reported.
* Speed and memory: a child process pinned to one core loads the packaged encoder and scores
  ``--speed-rows`` answers with MetaRAG (and RT4CHART) through ``run_rows`` (one job), a fresh
  cache; peak RSS is the child's VmHWM.

    python scripts/train_encoder.py                  # once: the folds and the packaged model
    python -m benchmarks.encoder_verifier_ragtruth [--folds-dir DIR] [--folds 5] [--limit N]
        [--json-out benchmarks/results/encoder_verifier_ragtruth.json]
        [--skip-speed | --speed-only]   # speed apart, e.g. cross-fit while the CPU is busy
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.trained_verifier_ragtruth import (
    DATA,
    METHODS,
    fmt,
    peak_rss_mb,
    score,
    scorer_for,
    without_focus,
)
from guardrail.evaluation.datasets import EvalRow, fold_of, load_rows
from guardrail.evaluation.metrics import answer_counts
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import RowOutcome, run_rows
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.encoder import EncoderModel
from guardrail.judges.local.trained import VerifierModel
from guardrail.judges.local.verifiers import EncoderVerifier, TrainedVerifier
from guardrail.localize.model import TokenLocalizer
from guardrail.training.encoder_stack import (
    encoder_fold,
    load_probs,
    stacked,
    train_stack,
)

ROOT = Path(__file__).resolve().parents[1]

RECALL_TARGET = 0.85


def recall_threshold(
    labels: list[int], scores: list[float], target: float = RECALL_TARGET
) -> float:
    """The highest threshold whose recall on (labels, scores) is >= ``target``."""
    positives = sorted((s for s, y in zip(scores, labels, strict=True) if y), reverse=True)
    if not positives:
        return 0.5
    need = max(1, int(-(-target * len(positives) // 1)))  # ceil
    return positives[min(need, len(positives)) - 1]


def network_auc(rows: list[EvalRow], folds_dir: Path) -> dict[str, float]:
    """The fold networks alone: answer-level ROC AUC of the highest out-of-fold
    p(unsupported) over an answer's factoids, overall and per task (``oof.json``)."""
    from sklearn.metrics import roc_auc_score

    probs, _ = load_probs(folds_dir / "oof.json")
    score = {r.id: max((p[2] for p in probs[r.id]), default=0.0) for r in rows}
    out = {}
    for task in ("all", *sorted({r.task for r in rows})):
        part = [r for r in rows if task in ("all", r.task)]
        if len({r.label for r in part}) == 2:
            out[task] = float(roc_auc_score([r.label for r in part], [score[r.id] for r in part]))
    return out


def cross_fit(
    rows: list[EvalRow], folds_dir: Path, folds: int, console: Console
) -> tuple[dict[str, dict[str, RowOutcome]], list[dict[str, Any]]]:
    from guardrail.training.localizer import train as train_localizer
    from guardrail.training.verifier import collect, train

    probs, meta = load_probs(folds_dir / "oof.json")
    missing = [r.id for r in rows if r.id not in probs]
    if missing:
        raise SystemExit(f"{folds_dir / 'oof.json'} lacks {len(missing)} rows (e.g. {missing[0]})")
    net_folds = int(str(meta["folds"]))
    networks = {
        e: EncoderModel(folds_dir / f"fold{e}", memo=100_000, require_stack=False)
        for e in range(net_folds)
    }
    net_fold = {r.id: encoder_fold(r.group, net_folds, int(str(meta.get("seed", 0)))) for r in rows}
    started = time.perf_counter()
    records = collect(rows)
    stacked_records = stacked(records, probs)
    console.print(f"collected {len(records)} rows in {time.perf_counter() - started:.0f} s")
    fold = {r.id: fold_of(r.group, folds, 0) for r in rows}
    outcomes: dict[str, dict[str, RowOutcome]] = {
        f"{v}/{m}": {} for v in ("encoder", "trained") for m in METHODS
    }
    fitted: list[dict[str, Any]] = []
    for k in range(folds):
        started = time.perf_counter()
        stack_data = train_stack([r for r in stacked_records if fold[r.id] != k])
        # the comparison: local:trained's own recipe (scripts/train_verifier.py's default)
        trained_data = train([r for r in records if fold[r.id] != k], "logistic")
        localizer_data = train_localizer([r for r in rows if fold[r.id] != k])
        localizer = TokenLocalizer(localizer_data)
        stack = VerifierModel(stack_data)
        trained_judge = LocalJudge(verifier=TrainedVerifier(VerifierModel(trained_data)))
        held = [r for r in rows if fold[r.id] == k]
        for method in METHODS:
            outcomes[f"trained/{method}"].update(score(held, method, trained_judge, localizer))
            for e, network in networks.items():
                judge = LocalJudge(verifier=EncoderVerifier(network.with_stack(stack)))
                part = [r for r in held if net_fold[r.id] == e]
                outcomes[f"encoder/{method}"].update(score(part, method, judge, localizer))
        fitted.append(
            {
                "fold": k,
                "held_rows": len(held),
                "stack_kind": stack_data["kind"],
                "stack_kinds_tried": stack_data["meta"]["kinds_tried"],
                "stack_thresholds": stack_data["thresholds"],
                "stack_inner_out_of_fold": stack_data["meta"]["out_of_fold"],
                "trained_inner_out_of_fold": trained_data["meta"]["out_of_fold"],
                "localizer_threshold": localizer_data["threshold"],
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        console.print(f"fold {k}: scored {len(held)} rows ({fitted[-1]['seconds']} s)")
    return outcomes, fitted


def operating_point(
    rows: list[EvalRow], outcomes: dict[str, RowOutcome], folds: int
) -> dict[str, Any]:
    """Held-out figures at a recall >= 0.85 threshold chosen on the other folds."""
    fold = {r.id: fold_of(r.group, folds, 0) for r in rows}
    labels: list[int] = []
    preds: list[bool] = []
    by_task: dict[str, tuple[list[int], list[bool]]] = {}
    thresholds = []
    for k in range(folds):
        others = [r for r in rows if fold[r.id] != k]
        t = recall_threshold(
            [r.label for r in others], [outcomes[r.id].score or 0.0 for r in others]
        )
        thresholds.append(t)
        for r in rows:
            if fold[r.id] == k:
                flagged = (outcomes[r.id].score or 0.0) >= t
                labels.append(r.label)
                preds.append(flagged)
                task = by_task.setdefault(r.task, ([], []))
                task[0].append(r.label)
                task[1].append(flagged)
    c = answer_counts(labels, preds)
    return {
        "thresholds": thresholds,
        "precision": c.precision,
        "recall": c.recall,
        "f1": c.f1,
        "flagged_share": sum(preds) / len(preds),
        "hallucinated_share": sum(labels) / len(labels),
        "tasks": {
            t: {"recall": answer_counts(*v).recall, "flagged_share": sum(v[1]) / len(v[1])}
            for t, v in sorted(by_task.items())
        },
    }


def speed(rows: int, model: Path | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--speed", str(rows)]
    if model is not None:
        cmd += ["--model", str(model)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def speed_child(n: int, model: Path | None) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rows = load_rows(DATA, shuffle_seed=0, limit=n)
    figures: dict[str, Any] = {"rows": len(rows)}
    for method in METHODS:
        verifier = EncoderVerifier(model_path=model)
        encoder = verifier.encoder
        judge = LocalJudge(verifier=verifier)
        scorer = scorer_for(method, judge)
        started = time.perf_counter()
        cpu = time.process_time()
        asyncio.run(run_rows(rows, scorer, jobs=1))
        wall = time.perf_counter() - started
        figures[method] = {
            "answers_per_second": len(rows) / wall,
            "cpu_seconds_per_answer": (time.process_time() - cpu) / len(rows),
            "pairs_per_answer": encoder.pairs_run / len(rows),
        }
    figures["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(figures))


def model_size(model: Path | None) -> int:
    model_dir = model or ROOT / "guardrail/judges/local/encoder"
    return sum(p.stat().st_size for p in Path(model_dir).iterdir())


def model_meta(model: Path | None) -> dict[str, Any]:
    """The packaged (or ``model``) encoder's ``meta``, read from its ``encoder.json`` alone (the
    cross-fit never loads it, so a directory being rewritten cannot fail the run at its end)."""
    path = Path(model or ROOT / "guardrail/judges/local/encoder") / "encoder.json"
    try:
        meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")).get("meta") or {}
    except (OSError, ValueError) as exc:
        return {"unreadable": str(exc)}
    return meta


def print_speed(console: Console, perf: dict[str, Any], model_bytes: int) -> None:
    console.print(
        f"speed (one core, {perf['rows']} answers, fresh cache): MetaRAG "
        f"{perf['metarag']['answers_per_second']:.2f} answers/s "
        f"({perf['metarag']['pairs_per_answer']:.0f} encoder pairs per answer), RT4CHART "
        f"{perf['rt4chart']['answers_per_second']:.2f} answers/s; peak RSS "
        f"{perf['peak_rss_mb']:.0f} MB; model files {model_bytes / 1e6:.1f} MB"
    )


def speed_only(args: argparse.Namespace, console: Console) -> int:
    """Measure speed and memory alone and store them in ``--json-out`` (added to what a
    cross-fit run with ``--skip-speed`` wrote there, e.g. while the machine was busy)."""
    out: dict[str, Any] = {}
    if args.json_out.is_file():
        out = json.loads(args.json_out.read_text(encoding="utf-8"))
    perf = speed(args.speed_rows, args.model)
    out.update(
        speed=perf,
        model_bytes=model_size(args.model),
        model_meta=model_meta(args.model),
    )
    print_speed(console, perf, out["model_bytes"])
    args.json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    console.print(f"updated {args.json_out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model", type=Path, default=None, help="encoder directory (default: packaged)"
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--limit", type=int, default=None, help="a shuffled sample of this many rows")
    ap.add_argument("--speed-rows", type=int, default=60)
    ap.add_argument("--speed", type=int, default=None, help=argparse.SUPPRESS)
    parts = ap.add_mutually_exclusive_group()
    parts.add_argument(
        "--skip-speed", action="store_true", help="cross-fit only (speed and memory left null)"
    )
    parts.add_argument(
        "--speed-only",
        action="store_true",
        help="measure speed and memory alone and add them to --json-out",
    )
    ap.add_argument(
        "--folds-dir",
        type=Path,
        default=ROOT / "build" / "encoder_folds",
        help="fold networks and oof.json from scripts/train_encoder.py",
    )
    ap.add_argument(
        "--json-out", type=Path, default=ROOT / "benchmarks/results/encoder_verifier_ragtruth.json"
    )
    args = ap.parse_args()
    if args.speed is not None:
        speed_child(args.speed, args.model)
        return 0
    console = Console(width=max(110, Console().width))
    if not DATA.is_file():
        console.print(f"RAGTruth data not found at {DATA}")
        return 2
    started = time.perf_counter()
    if not args.speed_only and not (args.folds_dir / "oof.json").is_file():
        console.print(f"no {args.folds_dir / 'oof.json'}: run python scripts/train_encoder.py")
        return 2
    if args.speed_only:
        return speed_only(args, console)
    rows = load_rows(DATA, shuffle_seed=0 if args.limit else None, limit=args.limit)
    outcomes, fitted = cross_fit(rows, args.folds_dir, args.folds, console)
    auc = network_auc(rows, args.folds_dir)
    summaries = {
        key: summarize(rows, by_row, threshold=0.5, threshold_source="scorer default")
        for key, by_row in outcomes.items()
    }
    factoid_spans = {}
    for key, by_row in outcomes.items():
        whole = summarize(rows, without_focus(by_row), threshold=0.5, threshold_source="")
        factoid_spans[key] = {
            "all": whole["span"],
            **{task: blk["span"] for task, blk in sorted(whole["tasks"].items())},
        }
    points = {
        key: operating_point(rows, outcomes[f"{key}/metarag"], args.folds)
        for key in ("encoder", "trained")
    }
    perf = None if args.skip_speed else speed(args.speed_rows, args.model)
    model_bytes = model_size(args.model)

    table = Table(title=f"RAGTruth dev ({len(rows)} rows), {args.folds}-fold grouped cross-fit")
    for col in (
        "verifier/method",
        "task",
        "n",
        "P",
        "R",
        "F1",
        "flagged",
        "span P",
        "span R",
        "span F1",
    ):
        left = col in ("verifier/method", "task")
        table.add_column(col, justify="left" if left else "right", no_wrap=left)
    for key, summary in summaries.items():
        for task, blk in [("all", summary), *sorted(summary["tasks"].items())]:
            a, s = blk["answer"], blk["span"] or {}
            ids = [r.id for r in rows if task == "all" or r.task == task]
            flagged = sum((outcomes[key][i].score or 0.0) >= 0.5 for i in ids) / max(1, len(ids))
            table.add_row(
                key if task == "all" else "",
                task,
                str(blk["n"]),
                fmt(a["precision"]),
                fmt(a["recall"]),
                fmt(a["f1"]),
                f"{flagged:.0%}",
                *(fmt(s[k]) if s else "-" for k in ("precision", "recall", "f1")),
            )
    console.print(table)
    console.print("span F1 with whole-factoid spans (no word localizer):")
    for key, by_task in factoid_spans.items():
        console.print(
            f"  {key}: " + ", ".join(f"{t} {s['f1']:.3f}" for t, s in by_task.items() if s)
        )
    for key, point in points.items():
        console.print(
            f"{key} MetaRAG at a recall >= {RECALL_TARGET} threshold chosen on the other folds: "
            f"held-out recall {point['recall']:.3f}, precision {point['precision']:.3f}, flagged "
            f"{point['flagged_share']:.0%} of answers ({point['hallucinated_share']:.0%} "
            "hallucinated)"
        )
    console.print(
        "fold networks alone, answer AUC of max p(unsupported): "
        + ", ".join(f"{t} {v:.3f}" for t, v in auc.items())
    )
    if perf is not None:
        print_speed(console, perf, model_bytes)
    out = {
        "dataset": str(DATA),
        "rows": len(rows),
        "protocol": {
            "folds": args.folds,
            "grouped_by": "meta.source_id",
            "network": "each row read by the fold network that did not see its source document",
            "stack_trained_and_localizer": "fitted on the other folds",
            "scorer_threshold": 0.5,
        },
        "folds": fitted,
        "summaries": {
            k: {kk: v[kk] for kk in ("n", "answer", "span", "tasks", "cost")}
            for k, v in summaries.items()
        },
        "factoid_span_without_localizer": factoid_spans,
        "recall_operating_point": points,
        "network_answer_auc": auc,
        "speed": perf,
        "model_bytes": model_bytes,
        "model_meta": model_meta(args.model),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    args.json_out.parent.mkdir(parents=True, exist_ok=True)
    args.json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    console.print(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
