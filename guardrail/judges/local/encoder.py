"""The encoder verifier: a fine-tuned MiniLM cross-encoder run with onnxruntime (no torch).

The model (``encoder/model.onnx``, int8, with ``tokenizer.json`` and ``encoder.json`` beside it,
written by ``scripts/train_encoder.py``) reads one pair — a statement and one *window* of its
context — and gives three probabilities: supported, contradicted, unsupported.

**Windowing.** Contexts are longer than the model's input (:data:`MAX_TOKENS` word pieces for
statement and window together), so each statement is checked against one window: the context
sentence that the lexical matcher ranks best for it (IDF-weighted word coverage,
:func:`~guardrail.judges.local.verify.assess`), widened with its neighbouring sentences (next
first, then previous) while the window stays under :data:`WINDOW_WORDS` words. A statement that
shares no word with the context gets the context's first sentences. The training script builds
its windows with the same function, so training and scoring see the same kind of input.

**Decision.** ``supported`` >= the ``support`` cut -> SUPPORTED; else ``contradicted`` >= the
``refute`` cut -> CONTRADICTED; else UNKNOWN. The cuts live in ``encoder.json`` (chosen on
grouped out-of-fold predictions, see ``benchmarks/encoder_verifier_ragtruth.py``).

Needs the ``encoder`` extra (``pip install 'guardrail[encoder]'``: onnxruntime, tokenizers).
"""

from __future__ import annotations

import copy
import json
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.local.verify import Assessment, ContextIndex, Support

ENCODER_FORMAT = "guardrail-encoder/1"
ENCODER_DIR = "encoder"
LABELS = ("supported", "contradicted", "unsupported")
MAX_TOKENS = 64
WINDOW_WORDS = 32
_EXTRA_HINT = "the encoder verifier needs the 'encoder' extra: pip install 'guardrail[encoder]'"


def context_sentences(index: ContextIndex) -> list[str]:
    """The context's sentences in order (the index's whole-sentence units)."""
    out: list[str] = []
    for unit in index.units:
        if unit.sentence == len(out):
            out.append(unit.text)
    return out


def window(assessment: Assessment, sentences: Sequence[str], words: int = WINDOW_WORDS) -> str:
    """The context window a statement is checked against (see the module docstring)."""
    if not sentences:
        return ""
    best = assessment.best
    if best is None:
        chosen = [0]
        size = len(sentences[0].split())
        nxt = 1
        while nxt < len(sentences) and size + len(sentences[nxt].split()) <= words:
            size += len(sentences[nxt].split())
            chosen.append(nxt)
            nxt += 1
        return " ".join(sentences[i] for i in chosen)
    centre = best.unit.sentence
    lo = hi = centre
    size = len(sentences[centre].split())
    grew = True
    while grew:
        grew = False
        for side in (hi + 1, lo - 1):
            if 0 <= side < len(sentences):
                extra = len(sentences[side].split())
                if side not in range(lo, hi + 1) and size + extra <= words:
                    size += extra
                    lo, hi = min(lo, side), max(hi, side)
                    grew = True
    return " ".join(sentences[lo : hi + 1])


@dataclass(frozen=True)
class EncoderCutoffs:
    """Cuts on the model's probabilities; ``entailed`` is RT4CHART's support cut."""

    support: float = 0.5
    refute: float = 0.5
    entailed: float = 0.5

    def outcome(self, probs: Sequence[float], *, rt4chart: bool = False) -> Support:
        supported, contradicted = probs[0], probs[1]
        if supported >= (self.entailed if rt4chart else self.support):
            return Support.SUPPORTED
        if contradicted >= self.refute:
            return Support.CONTRADICTED
        return Support.UNKNOWN


def _softmax(row: Sequence[float]) -> tuple[float, float, float]:
    top = max(row)
    e = [math.exp(v - top) for v in row]
    total = sum(e)
    return (e[0] / total, e[1] / total, e[2] / total)


class EncoderModel:
    """A loaded encoder directory: ``probabilities(pairs)`` and the decision cuts.

    ``memo`` bounds an in-memory cache of pair -> probabilities (MetaRAG verifies several
    variants of one statement against the same window; the cache also lets a benchmark retune
    cuts without re-running the network).
    """

    def __init__(self, directory: str | Path | None = None, *, memo: int = 4096) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigError(_EXTRA_HINT) from None
        root = (
            Path(directory)
            if directory is not None
            else Path(str(resources.files(__package__ or "guardrail.judges.local"))) / ENCODER_DIR
        )
        meta_path = root / "encoder.json"
        if not meta_path.is_file():
            raise ConfigError(f"encoder model: {meta_path} not found")
        try:
            data: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"encoder model: cannot read {meta_path}: {exc}") from None
        if data.get("format") != ENCODER_FORMAT:
            raise ConfigError(
                f"encoder model: expected format {ENCODER_FORMAT!r}, got {data.get('format')!r}"
            )
        if list(data.get("labels") or []) != list(LABELS):
            raise ConfigError(f"encoder model: labels must be {list(LABELS)}")
        self.max_tokens = int(data.get("max_tokens", MAX_TOKENS))
        self.window_words = int(data.get("window_words", WINDOW_WORDS))
        th = data.get("thresholds") or {}
        default = EncoderCutoffs()
        self.decision = EncoderCutoffs(
            support=float(th.get("support", default.support)),
            refute=float(th.get("refute", default.refute)),
            entailed=float(th.get("entailed", th.get("support", default.entailed))),
        )
        self.meta: dict[str, Any] = dict(data.get("meta") or {})
        try:
            self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        except Exception as exc:  # tokenizers raises its own Exception type
            raise ConfigError(
                f"encoder model: cannot read tokenizer.json in {root}: {exc}"
            ) from None
        self.tokenizer.enable_truncation(self.max_tokens, strategy="longest_first")
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(
                str(root / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own Exception types
            raise ConfigError(f"encoder model: cannot load model.onnx in {root}: {exc}") from None
        self.memo_size = memo
        self._memo: OrderedDict[tuple[str, str], tuple[float, float, float]] = OrderedDict()
        self.pairs_run = 0

    def with_decision(self, decision: EncoderCutoffs) -> EncoderModel:
        """The same network (and cache) with other cuts."""
        twin = copy.copy(self)
        twin.decision = decision
        return twin

    def probabilities(
        self, pairs: Sequence[tuple[str, str]], batch: int = 16
    ) -> list[tuple[float, float, float]]:
        """(supported, contradicted, unsupported) for each (statement, window) pair."""
        import numpy as np

        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        for start in range(0, len(todo), batch):
            chunk = todo[start : start + batch]
            enc = self.tokenizer.encode_batch(chunk)
            feed = {
                "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
            }
            logits = self.session.run(["logits"], feed)[0]
            self.pairs_run += len(chunk)
            for pair, row in zip(chunk, logits.tolist(), strict=True):
                self._memo[pair] = _softmax(row)
        out = []
        for pair in pairs:
            probs = self._memo[pair]
            self._memo.move_to_end(pair)
            out.append(probs)
        while len(self._memo) > self.memo_size:
            self._memo.popitem(last=False)
        return out
