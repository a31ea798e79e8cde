"""Training data and stacking for the encoder verifier (``scripts/train_encoder.py``).

The encoder verifier has two fitted parts (:mod:`guardrail.judges.local.encoder`): a network
over (factoid, context window) pairs and a stack — the trained verifier's trees over lexical
features plus the network's three probabilities. Both learn from the same labelled rows
(RAGTruth dev), so the stack must see the network's probabilities *out of fold*: each row's
probabilities come from a network fine-tuned on the other folds (grouped by source document,
:func:`encoder_fold`), never from one that saw its labels. At scoring time the packaged network
(fine-tuned on every row) plays the part the fold networks played in training.

Nothing here imports torch or runs at scoring time.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from guardrail.evaluation.datasets import EvalRow, fold_of
from guardrail.judges.local.verifiers import LexicalVerifier
from guardrail.training.encoder_data import Example, labelled_examples
from guardrail.training.readings import encoder_window
from guardrail.training.verifier import FactoidRecord, ModelKind, RowRecord, Statement, train

Probs = tuple[float, float, float]


def encoder_fold(group: str, folds: int, seed: int = 0) -> int:
    """The fold whose network does *not* see rows of ``group`` (grouped by source document)."""
    return fold_of(group, folds, f"encoder:{seed}")


def contexts(rows: Sequence[EvalRow]) -> dict[str, str]:
    """Each row's context as the scorers join it."""
    return {r.id: "\n\n".join(r.contexts) for r in rows}


def factoid_pairs(
    records: Sequence[RowRecord], context: Mapping[str, str], reader: LexicalVerifier
) -> dict[str, list[tuple[str, str]]]:
    """Per row: the (factoid, window) pair the network reads for each of its factoids."""
    return {
        r.id: [(f.text, encoder_window(reader, f.text, context[r.id])) for f in r.factoids]
        for r in records
    }


def labelled(
    records: Sequence[RowRecord], context: Mapping[str, str], reader: LexicalVerifier, seed: int = 0
) -> dict[str, list[Example]]:
    """Per row: its labelled factoids and their perturbations (deterministic per row)."""
    out: dict[str, list[Example]] = {}
    for r in records:
        rng = random.Random(f"{seed}:{r.id}")
        facts = [(f.text, bool(f.label)) for f in r.factoids]
        out[r.id] = labelled_examples(facts, context[r.id], reader, rng)
    return out


def _with(statement: Statement, probs: Sequence[float]) -> Statement:
    return dataclasses.replace(statement, features=statement.features.stacked(probs))


def stacked(records: Sequence[RowRecord], probs: Mapping[str, Sequence[Probs]]) -> list[RowRecord]:
    """``records`` whose statements carry the network's probabilities for their factoid (a
    variant is read as the factoid it was made from, as the judge does)."""
    out = []
    for r in records:
        row_probs = probs[r.id]
        if len(row_probs) != len(r.factoids):
            raise ValueError(
                f"row {r.id}: {len(row_probs)} probabilities, {len(r.factoids)} factoids"
            )
        factoids = [
            FactoidRecord(
                f.text,
                f.spans,
                f.label,
                _with(f.own, p),
                [(rel, _with(s, p)) for rel, s in f.variants],
            )
            for f, p in zip(r.factoids, row_probs, strict=True)
        ]
        out.append(dataclasses.replace(r, factoids=factoids))
    return out


def save_probs(
    path: Path, probs: Mapping[str, Sequence[Probs]], meta: Mapping[str, object]
) -> None:
    """Out-of-fold probabilities as JSON (row id -> one triple per factoid)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"meta": dict(meta), "probs": {k: [list(p) for p in v] for k, v in probs.items()}}
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")


def load_probs(path: Path) -> tuple[dict[str, list[Probs]], dict[str, object]]:
    """What :func:`save_probs` wrote."""
    data = json.loads(path.read_text(encoding="utf-8"))
    probs = {k: [(float(a), float(b), float(c)) for a, b, c in v] for k, v in data["probs"].items()}
    return probs, dict(data.get("meta") or {})


#: Model kinds the stack may be (the trained verifier's recipes).
STACK_KINDS: tuple[ModelKind, ...] = ("trees", "logistic")


def train_stack(records: Sequence[RowRecord], *, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    """The stack model: the trained verifier's recipe (:func:`verifier.train`) for each of
    :data:`STACK_KINDS` on ``records`` (already :func:`stacked`), keeping the kind with the lower
    grouped out-of-fold factoid log-loss — chosen inside ``records``, never on rows it scores."""
    best: dict[str, Any] | None = None
    tried = {}
    for kind in STACK_KINDS:
        data = train(records, kind, folds=folds, seed=seed)
        tried[kind] = data["meta"]["out_of_fold"]["log_loss"]
        if best is None or tried[kind] < best["meta"]["out_of_fold"]["log_loss"]:
            best = data
    assert best is not None
    best["meta"]["kinds_tried"] = tried
    return best
