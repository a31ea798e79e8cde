"""A BERT cross-encoder in plain torch, loaded from the MiniLM safetensors, and its ONNX export.

Used only by :mod:`guardrail.training.encoder_train` (the ``encoder-train`` extra); scoring
never imports torch. The architecture is BERT's (all-MiniLM-L6-v2: 6 layers, 384 wide,
12 heads) with a classification head over the mean of the token vectors: supported /
contradicted / unsupported.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer
from torch import nn

LABELS = ("supported", "contradicted", "unsupported")


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, inner: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.up = nn.Linear(hidden, inner)
        self.down = nn.Linear(inner, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).view(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h) + bias, dim=-1)
        ctx = (self.drop(att) @ v).transpose(1, 2).reshape(b, n, d)
        x = self.norm1(x + self.drop(self.out(ctx)))
        return self.norm2(x + self.drop(self.down(nn.functional.gelu(self.up(x)))))


class CrossEncoder(nn.Module):
    def __init__(
        self,
        vocab: int = 30522,
        hidden: int = 384,
        layers: int = 6,
        heads: int = 12,
        inner: int = 1536,
        positions: int = 512,
        labels: int = len(LABELS),
    ) -> None:
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(positions, hidden)
        self.segment = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(Layer(hidden, heads, inner) for _ in range(layers))
        self.head = nn.Linear(hidden, labels)
        self.drop = nn.Dropout(0.1)

    def pooled(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        """The mean of the last layer's token vectors over real tokens (the pooling
        all-MiniLM-L6-v2 was trained with): what the head reads."""
        n = input_ids.shape[1]
        pos = torch.arange(n, device=input_ids.device).unsqueeze(0)
        x = self.word(input_ids) + self.position(pos) + self.segment(token_type_ids)
        x = self.drop(self.norm(x))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        keep = attention_mask.unsqueeze(-1).to(x.dtype)
        return (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        return self.head(self.drop(self.pooled(input_ids, attention_mask, token_type_ids)))


class _Exported(nn.Module):
    """What the ONNX file computes: the logits and the pooled vector they are read from."""

    def __init__(self, model: CrossEncoder) -> None:
        super().__init__()
        self.model = model

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.model.pooled(input_ids, attention_mask, token_type_ids)
        return self.model.head(pooled), pooled


def load_minilm(path: str | Path) -> CrossEncoder:
    """A cross-encoder whose body is the pretrained weights in ``path/model.safetensors``."""
    w = load_file(str(Path(path) / "model.safetensors"))
    model = CrossEncoder()
    state: dict[str, Any] = {
        "word.weight": w["embeddings.word_embeddings.weight"],
        "position.weight": w["embeddings.position_embeddings.weight"],
        "segment.weight": w["embeddings.token_type_embeddings.weight"],
        "norm.weight": w["embeddings.LayerNorm.weight"],
        "norm.bias": w["embeddings.LayerNorm.bias"],
    }
    for i in range(len(model.layers)):
        p = f"encoder.layer.{i}."
        a = p + "attention.self."
        state[f"layers.{i}.qkv.weight"] = torch.cat(
            [w[a + "query.weight"], w[a + "key.weight"], w[a + "value.weight"]]
        )
        state[f"layers.{i}.qkv.bias"] = torch.cat(
            [w[a + "query.bias"], w[a + "key.bias"], w[a + "value.bias"]]
        )
        for mine, theirs in (
            ("out", "attention.output.dense"),
            ("norm1", "attention.output.LayerNorm"),
            ("up", "intermediate.dense"),
            ("down", "output.dense"),
            ("norm2", "output.LayerNorm"),
        ):
            state[f"layers.{i}.{mine}.weight"] = w[p + theirs + ".weight"]
            state[f"layers.{i}.{mine}.bias"] = w[p + theirs + ".bias"]
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert set(missing) <= {"head.weight", "head.bias"}, missing
    return model


def export_onnx(model: CrossEncoder, out: Path) -> None:
    """Write ``model`` as ONNX (dynamic batch and length) with two outputs: ``logits`` over
    :data:`LABELS` and ``embedding``, the pooled 384-wide vector (a sentence embedding when one
    text is given with segment ids 0)."""
    model.eval()
    ids = torch.ones(2, 16, dtype=torch.long)
    torch.onnx.export(
        _Exported(model),
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(out),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits", "embedding"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "length"},
            "attention_mask": {0: "batch", 1: "length"},
            "token_type_ids": {0: "batch", 1: "length"},
            "logits": {0: "batch"},
            "embedding": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )


def quantize(src: Path, dst: Path) -> None:
    """Dynamic int8 quantization of the matrix weights (onnxruntime's quantizer)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)


Pair = tuple[list[int], list[int]]


def encode(tokenizer: Tokenizer, pairs: Sequence[tuple[str, str]], max_tokens: int) -> list[Pair]:
    """Word-piece ids and segment ids of (statement, window) pairs, cut to ``max_tokens``."""
    tokenizer.enable_truncation(max_tokens, strategy="longest_first")
    tokenizer.no_padding()
    enc = tokenizer.encode_batch(list(pairs))
    return [(e.ids, e.type_ids) for e in enc]


def tensors(items: Sequence[Pair]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A padded batch: ids, attention mask, segment ids."""
    width = max(len(ids) for ids, _ in items)
    ids = torch.zeros(len(items), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for i, (a, t) in enumerate(items):
        ids[i, : len(a)] = torch.tensor(a)
        mask[i, : len(a)] = 1
        types[i, : len(t)] = torch.tensor(t)
    return ids, mask, types


def plan_batches(n: int, size: int, epochs: float, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of example indices for ``epochs`` passes (a fraction cuts the last)."""

    def one() -> list[list[int]]:
        order = list(range(n))
        rng.shuffle(order)
        return [order[i : i + size] for i in range(0, n, size)]

    whole = int(epochs)
    plan = [b for _ in range(whole) for b in one()]
    if epochs > whole:
        plan += one()[: int((epochs - whole) * n / size)]
    return plan


def fine_tune(
    base: Path,
    items: Sequence[Pair],
    labels: Sequence[int],
    *,
    epochs: float = 1.0,
    batch: int = 16,
    lr: float = 8e-5,
    seed: int = 0,
    class_weight: Sequence[float] | None = None,
    description: str = "fine-tuning",
) -> CrossEncoder:
    """The pretrained MiniLM at ``base`` with a 3-way head, fine-tuned on ``items``/``labels``
    with AdamW (linear warm-up over the first tenth, then linear decay); returned in eval mode.

    The word-piece embeddings stay as pretrained: 12 M of the 22 M weights, the costliest
    optimizer step, and the part a few thousand pairs would overfit first.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    torch.manual_seed(seed)
    model = load_minilm(base)
    model.train()
    model.word.weight.requires_grad_(False)
    plan = plan_batches(len(items), batch, epochs, random.Random(seed))
    target = torch.tensor(list(labels))
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=lr, weight_decay=0.01)
    warm = max(1, len(plan) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: min((s + 1) / warm, max(0.0, (len(plan) - s) / max(1, len(plan) - warm))),
    )
    weight = torch.tensor(list(class_weight), dtype=torch.float) if class_weight else None
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    running = 0.0
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[loss]}"))
    with Progress(*columns, TimeRemainingColumn()) as bar:
        task = bar.add_task(description, total=len(plan), loss="")
        for step, idx in enumerate(plan):
            ids, mask, types = tensors([items[i] for i in idx])
            loss = loss_fn(model(ids, mask, types), target[idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            value = float(loss.detach())
            running = 0.98 * running + 0.02 * value if step else value
            bar.update(task, advance=1, loss=f"loss {running:.3f}")
            if not sys.stdout.isatty() and step % 100 == 0:
                print(f"{description}: step {step}/{len(plan)} loss {running:.3f}", flush=True)
    model.eval()
    return model
