"""The offline judge's trained verifier on RAGTruth dev: cross-fitted quality, speed, memory.

Protocol (no figure comes from rows a model or threshold was fitted on):

* Rows are split into ``--folds`` folds grouped by source document (``meta.source_id``).
* For each fold, a verifier is trained on the other folds with the recipe of
  ``scripts/train_verifier.py`` (:func:`guardrail.training.verifier.train`: model fit, then
  YES/NO/NOT SURE thresholds chosen on grouped out-of-fold predictions *inside* those folds),
  and so is the word localizer (``scripts/train_localizer.py``'s recipe,
  :func:`guardrail.training.localizer.train`, its threshold chosen inside those folds too).
* The held-out fold is then scored by the real scorers — ``MetaRAG(judge)`` and
  ``RT4Chart(judge)`` with their default settings (threshold 0.5) — through
  :func:`guardrail.evaluation.runner.run_rows`, exactly as ``guardrail eval`` does.
* Figures are computed over all rows (each scored by the model that did not see it), with
  ``guardrail eval``'s own summarizer: answer-level P/R/F1 of the hallucinated class overall and
  per task, span-level character-overlap P/R/F1.
* The rule-based verifier is scored on the same rows for comparison (it has no fitted parts;
  it uses the fold's localizer).
* Span figures are also given with whole-factoid spans (the localizer's ``focus`` dropped), to
  show what the word localizer adds.

Speed and memory are measured in a child process pinned to one core that loads only the
packaged model and scores ``--speed-rows`` answers sequentially with MetaRAG.

    python -m benchmarks.trained_verifier_ragtruth [--folds 5] [--kind logistic]
        [--json-out benchmarks/results/trained_verifier_ragtruth.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from benchmarks._common import data_root
from guardrail.evaluation.datasets import EvalRow, load_rows
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import RowOutcome, run_rows
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.trained import VERIFIER_FILE, VerifierModel
from guardrail.judges.local.verifiers import TrainedVerifier
from guardrail.localize.model import TokenLocalizer
from guardrail.scoring.base import ScorerBase
from guardrail.scoring.metarag import MetaRAG
from guardrail.scoring.rt4chart import RT4Chart
from guardrail.training.verifier import MAX_FLAGGED, PER_KIND

ROOT = Path(__file__).resolve().parents[1]

DATA = data_root() / "ragtruth" / "dev.jsonl"
METHODS = ("metarag", "rt4chart")


def scorer_for(
    method: str, judge: LocalJudge, localizer: TokenLocalizer | Literal["packaged"] = "packaged"
) -> ScorerBase:
    if method == "metarag":
        return MetaRAG(judge, localizer=localizer)
    return RT4Chart(judge, localizer=localizer)


def score(
    rows: list[EvalRow], method: str, judge: LocalJudge, localizer: TokenLocalizer
) -> dict[str, RowOutcome]:
    result = asyncio.run(run_rows(rows, scorer_for(method, judge, localizer), jobs=1))
    return result.outcomes


def without_focus(outcomes: dict[str, RowOutcome]) -> dict[str, RowOutcome]:
    """The same outcomes with whole-factoid spans (what the scorers report without a localizer)."""
    out = {}
    for key, outcome in outcomes.items():
        factoids = [f.model_copy(update={"focus": []}) for f in outcome.factoids]
        out[key] = outcome.model_copy(update={"factoids": factoids})
    return out


def cross_fit(
    rows: list[EvalRow],
    folds: int,
    kind: str,
    console: Console,
    max_flagged: float | None,
    methods: tuple[str, ...] = METHODS,
    verifiers: tuple[str, ...] = ("trained", "rules"),
    write_model: Path | None = None,
    per_kind: bool = PER_KIND,
) -> tuple[dict[str, dict[str, RowOutcome]], list[dict[str, Any]]]:
    """Outcomes keyed ``"trained/metarag"`` etc.; every row scored by models fitted without it.

    Both the verifier and the word localizer are refitted on each training part; the rule
    verifier has no fitted parts but uses the same fold's localizer. ``write_model`` also
    writes the model ``scripts/train_verifier.py`` would (the recipe on every row), from the
    same statements.
    """
    from guardrail.evaluation.datasets import fold_of
    from guardrail.training.localizer import train as train_localizer
    from guardrail.training.verifier import collect, train

    records = collect(rows)
    by_id = {r.id: r for r in rows}
    fold = {r.id: fold_of(r.group, folds, 0) for r in records}
    outcomes: dict[str, dict[str, RowOutcome]] = {
        f"{v}/{m}": {} for v in verifiers for m in methods
    }
    rules_judge = LocalJudge(verifier="rules")
    fitted: list[dict[str, Any]] = []
    for k in range(folds):
        train_part = [r for r in records if fold[r.id] != k]
        held = [by_id[r.id] for r in records if fold[r.id] == k]
        started = time.perf_counter()
        data = train(
            train_part,
            kind,  # type: ignore[arg-type]
            max_flagged=max_flagged,
            per_kind=per_kind,
        )
        localizer_data = train_localizer([by_id[r.id] for r in train_part])
        localizer = TokenLocalizer(localizer_data)
        judge = LocalJudge(verifier=TrainedVerifier(VerifierModel(data)))
        for method in methods:
            outcomes[f"trained/{method}"].update(score(held, method, judge, localizer))
            if "rules" in verifiers:
                outcomes[f"rules/{method}"].update(score(held, method, rules_judge, localizer))
        fitted.append(
            {
                "fold": k,
                "train_rows": len(train_part),
                "held_rows": len(held),
                "thresholds": data["thresholds"],
                "c": data["meta"].get("c"),
                "inner_out_of_fold": data["meta"]["out_of_fold"],
                "localizer_threshold": localizer_data["threshold"],
                "localizer_inner_span_f1": localizer_data["meta"]["out_of_fold_span_f1"],
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        console.print(f"fold {k}: trained on {len(train_part)} rows, scored {len(held)}")
    if write_model is not None:
        data = train(
            records,
            kind,  # type: ignore[arg-type]
            max_flagged=max_flagged,
            per_kind=per_kind,
        )
        data["meta"]["data"] = "ragtruth/dev.jsonl"
        data["meta"]["recipe"] = "scripts/train_verifier.py (guardrail.training.verifier)"
        write_model.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        console.print(f"wrote {write_model}")
    return outcomes, fitted


def speed(rows: int) -> dict[str, Any]:
    """Run this script's --speed mode in a fresh child (one core) and read its JSON line."""
    cmd = [sys.executable, __file__, "--speed", str(rows)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM; ru_maxrss would include the parent's, since
    Linux keeps it across exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speed_child(n: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rows = load_rows(DATA, shuffle_seed=0, limit=n)
    figures: dict[str, Any] = {"rows": len(rows)}
    for method in METHODS:
        judge = LocalJudge(verifier="trained")
        scorer = scorer_for(method, judge)
        started = time.perf_counter()
        cpu = time.process_time()
        for row in rows:
            scorer.score_sync(row.question, row.answer, row.contexts)
        wall = time.perf_counter() - started
        figures[method] = {
            "answers_per_second": len(rows) / wall,
            "cpu_seconds_per_answer": (time.process_time() - cpu) / len(rows),
        }
    figures["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(figures))


def flags_and_conflicts(
    rows: list[EvalRow], by_row: dict[str, RowOutcome], threshold: float = 0.5
) -> dict[str, Any]:
    """The share of answers flagged at ``threshold`` (overall and per task), and how many of
    RAGTruth's human-labelled *conflict* spans (``meta.raw_labels`` whose type names a
    conflict) a flagged answer's flagged spans overlap."""
    flagged: dict[str, list[bool]] = {}
    caught = total = 0
    for row in rows:
        outcome = by_row.get(row.id)
        is_flagged = bool(outcome and outcome.score is not None and outcome.score >= threshold)
        flagged.setdefault("all", []).append(is_flagged)
        flagged.setdefault(row.task, []).append(is_flagged)
        for label in row.meta.get("raw_labels") or []:
            if "conflict" not in str(label.get("label_type", "")).lower():
                continue
            total += 1
            spans = outcome.flagged_spans if outcome and is_flagged else []
            caught += any(s < label["end"] and label["start"] < e for s, e in spans)
    return {
        "flagged_share": {k: sum(v) / len(v) for k, v in sorted(flagged.items())},
        "conflict_spans": {
            "total": total,
            "caught": caught,
            "share": caught / total if total else 0,
        },
    }


def fmt(x: float) -> str:
    return f"{x:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--kind", choices=("logistic", "trees"), default="logistic")
    ap.add_argument("--speed-rows", type=int, default=300)
    ap.add_argument("--speed", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--skip-speed", action="store_true", help="no one-core speed run")
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    ap.add_argument("--no-rules", action="store_true", help="skip the rule verifier's rows")
    ap.add_argument(
        "--write-model", type=Path, default=None, help="also write the model fitted on every row"
    )
    ap.add_argument(
        "--max-flagged",
        type=float,
        default=MAX_FLAGGED,
        help="the recipe's cap on the share of answers its thresholds flag "
        f"(default: {MAX_FLAGGED}; 1 lifts it)",
    )
    ap.add_argument(
        "--per-kind",
        action=argparse.BooleanOptionalAction,
        default=PER_KIND,
        help="separate cut-offs per kind of context (JSON record, passages, prose)",
    )
    ap.add_argument(
        "--json-out", type=Path, default=ROOT / "benchmarks/results/trained_verifier_ragtruth.json"
    )
    args = ap.parse_args()
    if args.speed is not None:
        speed_child(args.speed)
        return 0
    console = Console(width=max(110, Console().width))
    if not DATA.is_file():
        console.print(f"RAGTruth data not found at {DATA}")
        return 2
    rows = load_rows(DATA)
    started = time.perf_counter()
    cap = args.max_flagged if args.max_flagged is not None and args.max_flagged < 1 else None
    outcomes, fitted = cross_fit(
        rows,
        args.folds,
        args.kind,
        console,
        cap,
        tuple(args.methods),
        ("trained",) if args.no_rules else ("trained", "rules"),
        args.write_model,
        args.per_kind,
    )
    summaries: dict[str, Any] = {}
    for key, by_row in outcomes.items():
        summary = summarize(rows, by_row, threshold=0.5, threshold_source="scorer default")
        summaries[key] = summary.model_dump(mode="json")
    factoid_spans: dict[str, Any] = {}
    for key, by_row in outcomes.items():
        whole = summarize(
            rows, without_focus(by_row), threshold=0.5, threshold_source=""
        ).model_dump(mode="json")
        factoid_spans[key] = {
            "all": whole["span"],
            **{task: blk["span"] for task, blk in sorted(whole["tasks"].items())},
        }
    extra = {key: flags_and_conflicts(rows, by_row) for key, by_row in outcomes.items()}
    perf = speed(args.speed_rows) if not args.skip_speed else None
    model_bytes = (ROOT / "guardrail/judges/local" / VERIFIER_FILE).stat().st_size
    packaged = VerifierModel.load()

    table = Table(title=f"RAGTruth dev ({len(rows)} rows), {args.folds}-fold grouped cross-fit")
    cols: tuple[str, ...] = ("verifier/method", "task", "n", "P", "R", "F1", "flagged")
    cols = (*cols, "span P", "span R", "span F1")
    for col in cols:
        left = col in ("verifier/method", "task")
        table.add_column(col, justify="left" if left else "right", no_wrap=left)
    for key, summary in summaries.items():
        blocks = [("all", summary), *sorted(summary["tasks"].items())]
        shares = extra[key]["flagged_share"]
        for task, blk in blocks:
            a, s = blk["answer"], blk["span"] or {}
            table.add_row(
                key if task == "all" else "",
                task,
                str(blk["n"]),
                fmt(a["precision"]),
                fmt(a["recall"]),
                fmt(a["f1"]),
                f"{shares.get(task, 0.0):.0%}",
                *(fmt(s[k]) if s else "-" for k in ("precision", "recall", "f1")),
            )
    console.print(table)
    console.print("span F1 with whole-factoid spans (no word localizer):")
    for key, by_task in factoid_spans.items():
        console.print(
            f"  {key}: " + ", ".join(f"{t} {s['f1']:.3f}" for t, s in by_task.items() if s)
        )
    for key, figures in extra.items():
        shares = ", ".join(f"{t} {v:.0%}" for t, v in figures["flagged_share"].items())
        c = figures["conflict_spans"]
        console.print(
            f"  {key}: flagged {shares}; conflict spans caught {c['caught']}/{c['total']} "
            f"({c['share']:.0%})"
        )
    if perf is not None:
        console.print(
            f"speed (one core, {perf['rows']} answers, packaged model): MetaRAG "
            f"{perf['metarag']['answers_per_second']:.1f} answers/s, RT4CHART "
            f"{perf['rt4chart']['answers_per_second']:.1f} answers/s; peak RSS "
            f"{perf['peak_rss_mb']:.0f} MB; model file {model_bytes / 1024:.0f} KiB "
            f"({packaged.kind})"
        )
    out = {
        "dataset": str(DATA),
        "protocol": {
            "folds": args.folds,
            "grouped_by": "meta.source_id",
            "model_kind": args.kind,
            "thresholds": "chosen on grouped out-of-fold predictions inside each training part",
            "scorer_threshold": 0.5,
            "max_flagged": cap,
            "per_kind": args.per_kind,
        },
        "folds": fitted,
        "summaries": {
            k: {kk: v[kk] for kk in ("n", "answer", "span", "tasks", "cost")}
            for k, v in summaries.items()
        },
        "factoid_span_without_localizer": factoid_spans,
        "flags_and_conflict_spans": extra,
        "speed": perf,
        "model_file_bytes": model_bytes,
        "packaged_model": {"kind": packaged.kind, "meta": packaged.meta},
        "wall_seconds": round(time.perf_counter() - started, 1),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    args.json_out.parent.mkdir(parents=True, exist_ok=True)
    args.json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    console.print(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
