"""Synthetic training pairs with exact labels for the encoder verifier, made from HaluEval.

Every example is (statement, window, label) with label 0 supported, 1 contradicted,
2 unsupported; the window is the one the judge would pick at scoring time
(:func:`guardrail.training.readings.encoder_window`). Deterministic for a given seed.
Sources (no RAGTruth row is used, so all of RAGTruth stays held out for the encoder itself):

* **HaluEval summarization** (document, faithful summary): the summary's factoids (the offline
  decomposer, as at scoring time) are *supported*; so are their synonym rewrites (the offline
  mutator, i.e. what MetaRAG verifies) and factoids of document sentences.
  Perturbations with exact labels:

  - the mutator's antonym rewrites -> *contradicted*;
  - a number swapped for another number of the document (or shifted) -> *contradicted*;
  - a name swapped for another name of the document -> *contradicted*;
  - a name swapped for a name from another document -> *unsupported*;
  - a factoid of another document's summary, checked against this document -> *unsupported*;
  - a supported factoid with a clause of another document appended -> *unsupported*.

* **HaluEval QA** (knowledge, hallucinated answer): hallucinated answers of at least five words,
  written by an LLM to sound plausible, -> *unsupported*; the knowledge's own sentences ->
  *supported* (so sentence length and style do not give the label away).

* **RAGTruth dev** (:func:`labelled_examples`): every factoid of every answer, as MetaRAG's
  offline decomposer cuts it, labelled by the human spans (*unsupported* when it overlaps a
  hallucinated span, else *supported*), plus perturbations of the supported ones against their
  own context: a number or a name swapped for another of the same context -> *contradicted*.
  These rows are what the benchmark cross-fits over (a fold's encoder never sees them).

Nothing here imports torch; ``scripts/train_encoder.py`` trains on the result.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from guardrail.judges.local.encoder import WINDOW_WORDS
from guardrail.judges.local.judge import LocalJudge
from guardrail.judges.local.verifiers import LexicalVerifier
from guardrail.text.tokens import tokenize
from guardrail.training.readings import encoder_window, reader

SUPPORTED, CONTRADICTED, UNSUPPORTED = 0, 1, 2
_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*\b")
_MIN_WORDS = 4


@dataclass(frozen=True)
class Example:
    statement: str
    window: str
    label: int
    kind: str


def _read(path: Path, limit: int | None) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def _names(text: str) -> list[str]:
    """Capitalized word runs not at a sentence start (a rough proper-name finder)."""
    out = []
    for m in _NAME.finditer(text):
        before = text[: m.start()].rstrip()
        if before and before[-1] not in ".!?\"'":
            out.append(m.group())
    return out


def swap_number(statement: str, source: str, rng: random.Random) -> str | None:
    """``statement`` with one number replaced by another of ``source`` (or a shifted value)."""
    found = list(_NUMBER.finditer(statement))
    if not found:
        return None
    m = rng.choice(found)
    others = sorted({str(n) for n in _NUMBER.findall(source) if n != m.group()})
    if others:
        new = rng.choice(others)
    else:
        digits = m.group().replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            return None
        shifted = value + rng.choice((1, 2, 3, 5, 10)) if value < 1000 else value * 2
        new = f"{shifted:g}" if "." in digits else str(int(shifted))
    return statement[: m.start()] + new + statement[m.end() :]


def swap_name(statement: str, pool: Sequence[str], rng: random.Random) -> str | None:
    """``statement`` with one proper name replaced by a different one from ``pool``."""
    mine = _names(statement)
    if not mine:
        return None
    old = rng.choice(mine)
    choices = sorted({p for p in pool if p != old and p not in statement})
    if not choices:
        return None
    return statement.replace(old, rng.choice(choices), 1)


def _clause(statement: str) -> str:
    words = statement.rstrip(".!? ").split()
    return " ".join(words[: max(4, min(len(words), 10))])


class Builder:
    """Makes :class:`Example` lists; one offline judge gives decomposition, mutation, windows."""

    def __init__(self, seed: int = 0, k: int = 2, window_words: int = WINDOW_WORDS) -> None:
        self.rng = random.Random(seed)
        self.judge = LocalJudge(cache_size=4)
        self.reader = reader()
        self.k = k
        self.window_words = window_words

    def _factoids(self, text: str) -> list[str]:
        return [f for f in self.judge.decomposer.decompose(text) if len(f.split()) >= _MIN_WORDS]

    def example(self, statement: str, context: str, label: int, kind: str) -> Example:
        return Example(
            statement,
            encoder_window(self.reader, statement, context, self.window_words),
            label,
            kind,
        )

    def summary_examples(
        self, doc: str, summary: str, other_summary: str, other_doc: str
    ) -> Iterator[Example]:
        rng = self.rng
        mutator = self.judge.mutator
        factoids = self._factoids(summary)
        rng.shuffle(factoids)
        doc_facts = self._factoids(" ".join(doc.split(". ")[:12]))
        other = self._factoids(other_summary)
        names_here = _names(doc)
        names_there = _names(other_doc)
        for f in factoids[:2]:
            yield self.example(f, doc, SUPPORTED, "summary")
            syn = [s for s in mutator.synonyms(f, self.k) if s != f]
            if syn:
                yield self.example(rng.choice(syn), doc, SUPPORTED, "synonym")
            ant = mutator.antonyms(f, self.k)
            if ant:
                yield self.example(rng.choice(ant), doc, CONTRADICTED, "antonym")
            num = swap_number(f, doc, rng)
            if num and num != f:
                yield self.example(num, doc, CONTRADICTED, "number")
            name = swap_name(f, names_here, rng)
            if name and rng.random() < 0.6:
                yield self.example(name, doc, CONTRADICTED, "name")
            elif (name := swap_name(f, names_there, rng)) is not None:
                yield self.example(name, doc, UNSUPPORTED, "foreign-name")
        if doc_facts:
            f = rng.choice(doc_facts)
            yield self.example(f, doc, SUPPORTED, "document")
            if rng.random() < 0.5:
                ant = mutator.antonyms(f, 1)
                if ant:
                    yield self.example(ant[0], doc, CONTRADICTED, "document-antonym")
        if other:
            yield self.example(rng.choice(other), doc, UNSUPPORTED, "other-summary")
            if factoids:
                base = factoids[0].rstrip(".!? ")
                extra = _clause(rng.choice(other))
                joined = f"{base}, and {extra[0].lower()}{extra[1:]}."
                yield self.example(joined, doc, UNSUPPORTED, "appended")

    def qa_examples(self, knowledge: str, hallucinated: str) -> Iterator[Example]:
        if len(hallucinated.split()) >= 5 and any(
            t.is_word for t in tokenize(hallucinated, "lexical")
        ):
            yield self.example(hallucinated, knowledge, UNSUPPORTED, "qa-hallucinated")
        sentences = [s for s in self._factoids(knowledge)]
        if sentences and self.rng.random() < 0.5:
            yield self.example(self.rng.choice(sentences), knowledge, SUPPORTED, "knowledge")


def labelled_examples(
    factoids: Sequence[tuple[str, bool]],
    context: str,
    reading: LexicalVerifier,
    rng: random.Random,
) -> list[Example]:
    """Examples from one labelled answer: ``factoids`` are (text, hallucinated) pairs.

    Each factoid with its window, *unsupported* when hallucinated else *supported*; each
    supported factoid with one number, and one name, swapped for another of ``context``
    -> *contradicted*.
    """
    names = _names(context)
    out: list[Example] = []
    for text, hallucinated in factoids:
        label = UNSUPPORTED if hallucinated else SUPPORTED
        out.append(Example(text, encoder_window(reading, text, context), label, "labelled"))
        if hallucinated:
            continue
        for kind, changed in (
            ("labelled-number", swap_number(text, context, rng)),
            ("labelled-name", swap_name(text, names, rng)),
        ):
            if changed and changed != text:
                window = encoder_window(reading, changed, context)
                out.append(Example(changed, window, CONTRADICTED, kind))
    return out


def build(
    data: Path,
    *,
    summaries: int,
    qa: int,
    seed: int = 0,
    window_words: int = WINDOW_WORDS,
    progress: bool = True,
) -> list[Example]:
    """Examples from ``summaries`` HaluEval summarization pairs and ``qa`` HaluEval QA pairs
    under ``data`` (``../shared/data``), shuffled deterministically."""
    builder = Builder(seed, window_words=window_words)
    summ = _read(data / "halueval" / "halueval_summarization_4k.jsonl", None)
    right = [r for r in summ if r.get("label") == 0][:summaries]
    qa_rows = _read(data / "halueval" / "halueval_qa.jsonl", None)
    hallucinated = [r for r in qa_rows if r.get("label") == 1][:qa]
    out: list[Example] = []
    from rich.progress import Progress

    with Progress(disable=not progress) as bar:
        task = bar.add_task("synthetic pairs", total=len(right) + len(hallucinated))
        for i, row in enumerate(right):
            other = right[(i + 1 + builder.rng.randrange(len(right) - 1)) % len(right)]
            out.extend(
                builder.summary_examples(
                    str(row["context"]),
                    str(row["answer"]),
                    str(other["answer"]),
                    str(other["context"]),
                )
            )
            bar.advance(task)
        for row in hallucinated:
            out.extend(builder.qa_examples(str(row["context"]), str(row["answer"])))
            bar.advance(task)
    random.Random(seed + 1).shuffle(out)
    return out
