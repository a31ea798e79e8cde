"""The encoder verifier: a fine-tuned MiniLM cross-encoder (onnxruntime, no torch) stacked with
the trained verifier's alignment features.

The model directory (``encoder/``: ``model.onnx`` int8, ``tokenizer.json``, ``encoder.json``
and ``stack.json``, all written by ``scripts/train_encoder.py``) holds two parts:

* **the network** reads one pair — a statement and one *window* of its context — and gives
  three probabilities: supported, contradicted, unsupported. It was fine-tuned on RAGTruth's
  human-labelled factoids (and perturbations of them with exact labels) plus synthetic HaluEval
  pairs;
* **the stack** (``stack.json``, the trained verifier's model format over
  :data:`~guardrail.judges.local.features.STACK_NAMES`): gradient-boosted trees over the
  lexical features of the statement *and* the network's three probabilities, with thresholds
  chosen through MetaRAG's aggregation on out-of-fold predictions. Its ``p`` (not supported)
  becomes YES / NO / NOT SURE exactly like the trained verifier's, polarity included.

**What the network reads.** The content of a statement, polarity aside: for a variant that
this judge's own mutator made (a synonym or antonym of a factoid) the network reads the
factoid it was made from, so a factoid's variants share one forward pass and differ through
their lexical features and polarity, as in the trained verifier. Any other statement is read
as it is.

**Windowing.** Contexts are longer than the model's input (:data:`MAX_TOKENS` word pieces for
statement and window together), so each statement is checked against one window: the context
sentence that the lexical matcher ranks best for it (IDF-weighted word coverage,
:func:`~guardrail.judges.local.verify.assess`), widened with its neighbouring sentences (next
first, then previous) while the window stays under :data:`WINDOW_WORDS` words. A statement that
shares no word with the context gets the context's first sentences. Training builds its
windows with the same function.

Needs the ``encoder`` extra (``pip install 'guardrail-rag[encoder]'``: onnxruntime, tokenizers).
"""

from __future__ import annotations

import copy
import json
import math
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.local.trained import VerifierModel
from guardrail.judges.local.verify import Assessment, ContextIndex

ENCODER_FORMAT = "guardrail-encoder/2"
STACK_FILE = "stack.json"
ENCODER_DIR = "encoder"
LABELS = ("supported", "contradicted", "unsupported")
MAX_TOKENS = 64
WINDOW_WORDS = 32
_EXTRA_HINT = "the encoder verifier needs the 'encoder' extra: pip install 'guardrail-rag[encoder]'"


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


def _softmax(row: Sequence[float]) -> tuple[float, float, float]:
    top = max(row)
    e = [math.exp(v - top) for v in row]
    total = sum(e)
    return (e[0] / total, e[1] / total, e[2] / total)


def _feed(encodings: Sequence[Any]) -> dict[str, Any]:
    """The network's inputs for a batch of ``tokenizers`` encodings (padded alike)."""
    import numpy as np

    return {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }


class EncoderModel:
    """A loaded encoder directory: ``probabilities(pairs)`` and the :attr:`stack` model.

    ``memo`` bounds an in-memory cache of pair -> probabilities. ``require_stack=False`` loads
    a bare network (training reads its folds' networks before any stack exists).
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        memo: int = 4096,
        require_stack: bool = True,
    ) -> None:
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
        self.stack: VerifierModel | None = None
        if (root / STACK_FILE).is_file() or require_stack:
            self.stack = VerifierModel.load(root / STACK_FILE)
            if not self.stack.stacked:
                raise ConfigError(
                    f"encoder model: {root / STACK_FILE} is not stacked on the encoder's outputs"
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
        #: Unit embeddings of remembered texts (see :meth:`embeddings`), and texts run so far.
        self._embedding_memo: dict[str, Any] = {}
        self.texts_embedded = 0

    def with_stack(self, stack: VerifierModel) -> EncoderModel:
        """The same network (and cache) with another stack model (benchmarks' folds)."""
        if not stack.stacked:
            raise ConfigError("encoder model: the stack must be fitted on the encoder's outputs")
        twin = copy.copy(self)
        twin.stack = stack
        return twin

    def probabilities(
        self, pairs: Sequence[tuple[str, str]], batch: int = 16
    ) -> list[tuple[float, float, float]]:
        """(supported, contradicted, unsupported) for each (statement, window) pair."""

        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        for start in range(0, len(todo), batch):
            chunk = todo[start : start + batch]
            logits = self.session.run(["logits"], _feed(self.tokenizer.encode_batch(chunk)))[0]
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

    def embeddings(
        self, texts: Sequence[str], *, remember: bool = True, batch: int = 1
    ) -> Any:  # numpy.ndarray, typed Any so numpy stays an optional import here
        """L2-normalised ``embedding`` output (float64, one row per text) for each text read
        alone, token types 0, truncated to the model's :attr:`max_tokens` word pieces (the
        start of a longer text is what gets embedded).

        ``remember=True`` keeps each vector in an in-process memo keyed by text (topic
        classifiers pass their training examples, so building many classifiers from one policy
        runs the network once per example); vectors already in the memo are reused either way.
        ``batch`` texts share one run. It is 1 by default: the int8 network quantizes its
        activations with one scale per run, so a text's vector depends on what it is batched
        with (cosine down to 0.97 in batches of 16 against alone), and one at a time is no
        slower on short texts. Raises :class:`ConfigError` when the model has no ``embedding``
        output (networks exported before it existed).
        """
        import numpy as np

        output = next((o for o in self.session.get_outputs() if o.name == "embedding"), None)
        if output is None:
            raise ConfigError(
                "encoder model: model.onnx has no 'embedding' output (re-export it with "
                "scripts/train_encoder.py)"
            )
        memo = self._embedding_memo
        fresh: dict[str, Any] = {}
        todo = list(dict.fromkeys(t for t in texts if t not in memo))
        for start in range(0, len(todo), max(1, batch)):
            chunk = todo[start : start + max(1, batch)]
            feed = _feed(self.tokenizer.encode_batch(chunk))  # one text each: token types 0
            vectors = self.session.run(["embedding"], feed)[0].astype(np.float64)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms > 0.0, norms, 1.0)
            self.texts_embedded += len(chunk)
            fresh.update(zip(chunk, vectors, strict=True))
        if remember:
            memo.update(fresh)
        rows = [memo[t] if t in memo else fresh[t] for t in texts]
        if not rows:
            width = output.shape[-1] if isinstance(output.shape[-1], int) else 0
            return np.zeros((0, width), dtype=np.float64)
        return np.vstack(rows)
