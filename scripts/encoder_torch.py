"""A BERT cross-encoder in plain torch, loaded from the MiniLM safetensors, and its ONNX export.

Used only by ``scripts/train_encoder.py`` (the ``encoder-train`` extra); scoring never imports
torch. The architecture is BERT's (all-MiniLM-L6-v2: 6 layers, 384 wide, 12 heads) with a
classification head over the mean of the token vectors: supported / contradicted / unsupported.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file
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

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        n = input_ids.shape[1]
        pos = torch.arange(n, device=input_ids.device).unsqueeze(0)
        x = self.word(input_ids) + self.position(pos) + self.segment(token_type_ids)
        x = self.drop(self.norm(x))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        # mean over real tokens: the pooling all-MiniLM-L6-v2 was trained with
        keep = attention_mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(self.drop(pooled))


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
    """Write ``model`` as ONNX (dynamic batch and length) — logits over :data:`LABELS`."""
    model.eval()
    ids = torch.ones(2, 16, dtype=torch.long)
    torch.onnx.export(
        model,
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(out),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "length"},
            "attention_mask": {0: "batch", 1: "length"},
            "token_type_ids": {0: "batch", 1: "length"},
            "logits": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )


def quantize(src: Path, dst: Path) -> None:
    """Dynamic int8 quantization of the matrix weights (onnxruntime's quantizer)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)
