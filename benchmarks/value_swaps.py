"""Value swaps drawn from RAGTruth contexts: a second English contradiction suite, made by
program rather than written by hand.

    python -m benchmarks.value_swaps [--split test|dev|all] [--per-kind 40] [--seed 13]
        [--json-out PATH]

For each RAGTruth source (``qa`` and ``summary`` rows; ``data2text`` contexts are tables, not
prose) it picks, with a fixed seed, up to three sentences of the context that hold a value — a
number, a year, a month, a weekday or a capitalised name — and builds two one-sentence answers
from each:

* a **faithful restatement**: the sentence with its parentheses dropped and a leading
  ``In ..., `` phrase moved to the end (most are close to the source sentence: this measures
  what the judge keeps, not how far it generalises);
* a **value swap**: the same sentence with that one value replaced by a value the context does
  not hold (another number, year, month or weekday; another name the context names elsewhere —
  a fact moved to another entity).

The question is the row's question (``qa``) or a request to summarise. Every answer is scored
with ``MetaRAG(LocalJudge())`` (k = 2) against the whole context; it prints, per kind, swaps
scored at least 0.8 and flagged at the 0.5 threshold, and restatements scored at most 0.3 and
not flagged. Sources are split into ``dev`` and ``test`` halves by a hash of the source id;
report the test half. The data is read from the shared data folder at run time; nothing is
stored but the results file. Exits 0 with a message if the data is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import data_root, write_results

CAUGHT = 0.8
KEPT = 0.3
THRESHOLD = 0.5
PER_SOURCE = 3
TASKS = ("qa", "summary")
KINDS = ("number", "year", "month", "weekday", "name")
MONTHS = (
    "January February March April May June July August September October November December"
).split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")
_YEAR = re.compile(r"\b(1[89]\d\d|20[0-4]\d)\b")
_NUMBER = re.compile(
    r"(?<![\d.,$£€:/-])\b(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\b(?![\d:/-]|\.\d|\)|°)"
)
#: A word right before a number that makes it a name or a label, not an amount ("Windows 10",
#: "Step 4"): a capitalised word, or an opening parenthesis ("(2)").
_LABEL_BEFORE = re.compile(r"(?:\b[A-Z][A-Za-z]*|\()\s*$")
_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2})\b")
_PARENS = re.compile(r"\s*\([^()]*\)")
_LEADING = re.compile(r"^(In|On|During|By|After|Before|Since) ([^,]{3,40}), (\w)(.*?)([.!?])$")
_STOP_NAMES = (
    set(MONTHS)
    | set(WEEKDAYS)
    | set("The A An In On At For From With By To Of As If It He She They We You Step Click".split())
)


@dataclass(frozen=True)
class Case:
    source: str
    half: str
    kind: str
    question: str
    context: str
    faithful: str
    swapped: str


def half_of(source: str) -> str:
    """``dev`` or ``test``: a stable hash of the source id."""
    return "test" if hashlib.sha256(source.encode()).digest()[0] % 2 else "dev"


def sentences(context: str) -> list[str]:
    """The prose sentences of a context (passage labels dropped), 6 to 40 words each."""
    text = re.sub(r"passage \d+:", " ", context)
    out = []
    for part in _SENTENCE.split(re.sub(r"\s+", " ", text).strip()):
        words = part.split()
        clean = not re.search(r"[a-z]\.[a-zA-Z]|\d\.$|…|\.\.", part)
        if 6 <= len(words) <= 40 and part[-1:] in ".!?" and part[:1].isupper() and clean:
            out.append(part)
    return out


def restate(sentence: str) -> str:
    """A faithful restatement: parentheses dropped, a leading time or place phrase moved last."""
    text = _PARENS.sub("", sentence).strip()
    m = _LEADING.match(text)
    if m:
        lead, phrase, first, rest, stop = m.groups()
        text = f"{first.upper()}{rest} {lead.lower()} {phrase}{stop}"
    return text


def _other_number(value: str, context: str, rng: random.Random) -> str | None:
    plain = value.replace(",", "")
    try:
        number = float(plain)
    except ValueError:
        return None
    is_int = "." not in plain
    for factor in rng.sample([2, 3, 0.5, 1.5, 4, 10], 6):
        new = number * factor + (0 if number else 7)
        text = (
            f"{int(new):,}"
            if "," in value and is_int
            else (str(int(new)) if is_int else f"{new:.1f}")
        )
        if new != number and text not in context and text != value and new >= 2:
            return text
    return None


def _proper(name: str, lower: set[str]) -> bool:
    """A name, not a capitalised phrase: no word of it is used in lower case in the context."""
    words = name.split()
    return words[0] not in _STOP_NAMES and not any(w.lower() in lower for w in words)


def swaps(sentence: str, context: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, swapped sentence) for each value of ``sentence`` that can be swapped."""
    out: list[tuple[str, str]] = []
    year = _YEAR.search(sentence)
    if year:
        shift = rng.choice([-7, -5, -3, 3, 5, 7])
        new = str(int(year.group(1)) + shift)
        if new not in context:
            out.append(("year", sentence[: year.start()] + new + sentence[year.end() :]))
    for number in _NUMBER.finditer(sentence):
        if _YEAR.fullmatch(number.group(1)) or _LABEL_BEFORE.search(sentence[: number.start()]):
            continue
        new_text = _other_number(number.group(1), context, rng)
        if new_text:
            out.append(("number", sentence[: number.start()] + new_text + sentence[number.end() :]))
        break
    for kind, names in (("month", MONTHS), ("weekday", WEEKDAYS)):
        found = [n for n in names if re.search(rf"\b{n}\b", sentence)]
        if found:
            others = [n for n in names if n not in context]
            if others:
                out.append(
                    (kind, re.sub(rf"\b{found[0]}\b", rng.choice(others), sentence, count=1))
                )
    lower = set(re.findall(r"\b[a-z]+\b", context))
    names_here = [
        m for m in _NAME.finditer(sentence) if m.start() > 0 and _proper(m.group(1), lower)
    ]
    if names_here:
        target = names_here[0]
        width = len(target.group(1).split())
        elsewhere = sorted(
            {
                m.group(1)
                for m in _NAME.finditer(context)
                if len(m.group(1).split()) == width
                and m.group(1) not in sentence
                and not set(m.group(1).split()) & set(target.group(1).split())
                and _proper(m.group(1), lower)
            }
        )
        if elsewhere:
            new = rng.choice(elsewhere)
            out.append(("name", sentence[: target.start()] + new + sentence[target.end() :]))
    return out


def build(rows: list[dict[str, Any]], seed: int) -> list[Case]:
    """Up to ``PER_SOURCE`` cases per source: seeded choices of sentence and of value."""
    by_source: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("task") in TASKS:
            source = f"{row['task']}-{(row.get('meta') or {}).get('source_id', row['id'])}"
            by_source.setdefault(source, row)
    cases: list[Case] = []
    for source in sorted(by_source):
        row = by_source[source]
        rng = random.Random(f"{seed}:{source}")
        candidates = sentences(row["context"])
        rng.shuffle(candidates)
        taken = 0
        for sentence in candidates:
            options = swaps(sentence, row["context"], rng)
            if not options:
                continue
            kind, swapped = rng.choice(options)
            question = row.get("question") or "Summarize the passage."
            if row["task"] == "summary":
                question = "Summarize the following news article."
            taken += 1
            cases.append(
                Case(
                    source=source,
                    half=half_of(source),
                    kind=kind,
                    question=question,
                    context=row["context"],
                    faithful=restate(sentence),
                    swapped=swapped,
                )
            )
            if taken == PER_SOURCE:
                break
    return cases


def run(split: str, per_kind: int, seed: int) -> dict[str, Any] | None:
    import json

    from guardrail.judges.local import LocalJudge
    from guardrail.scoring import MetaRAG, MetaRAGConfig

    path = data_root() / "ragtruth" / "dev.jsonl"
    if not path.exists():
        return None
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    cases = [c for c in build(rows, seed) if split == "all" or c.half == split]
    taken: dict[str, int] = defaultdict(int)
    chosen = []
    for case in cases:
        if taken[case.kind] < per_kind:
            taken[case.kind] += 1
            chosen.append(case)
    scorer = MetaRAG(LocalJudge(), config=MetaRAGConfig(k=2, threshold=THRESHOLD))
    per: dict[str, dict[str, int]] = {k: defaultdict(int) for k in KINDS}
    misses: list[dict[str, Any]] = []
    for case in chosen:
        row = per[case.kind]
        row["cases"] += 1
        swapped = scorer.score_sync(case.question, case.swapped, [case.context]).score
        faithful = scorer.score_sync(case.question, case.faithful, [case.context]).score
        row["caught"] += swapped >= CAUGHT
        row["flagged"] += swapped >= THRESHOLD
        row["kept"] += faithful <= KEPT
        row["passed"] += faithful < THRESHOLD
        if swapped < CAUGHT or faithful > KEPT:
            misses.append(
                {
                    "source": case.source,
                    "kind": case.kind,
                    "swapped": case.swapped,
                    "swapped_score": round(swapped, 2),
                    "faithful": case.faithful,
                    "faithful_score": round(faithful, 2),
                }
            )
    total: dict[str, int] = defaultdict(int)
    for row in per.values():
        for key, value in row.items():
            total[key] += value
    return {
        "split": split,
        "seed": seed,
        "per_kind_cap": per_kind,
        "per_kind": {k: dict(v) for k, v in per.items()},
        "total": dict(total),
        "misses": misses,
    }


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.0%})" if d else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("test", "dev", "all"), default="test")
    ap.add_argument("--per-kind", type=int, default=40, help="cases per kind at most")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    console = Console(width=120)
    found = run(args.split, args.per_kind, args.seed)
    if found is None:
        console.print(f"skipped: {data_root() / 'ragtruth' / 'dev.jsonl'} not found")
        sys.exit(0)
    table = Table(title=f"value swaps from RAGTruth contexts, {args.split} half, offline judge")
    for col in ("kind", "swaps ≥ 0.8", "swaps flagged", "restated ≤ 0.3", "restated passed"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    for kind, row in [*found["per_kind"].items(), ("all", found["total"])]:
        n = row.get("cases", 0)
        table.add_row(
            kind,
            _share(row.get("caught", 0), n),
            _share(row.get("flagged", 0), n),
            _share(row.get("kept", 0), n),
            _share(row.get("passed", 0), n),
        )
    console.print(table)
    path = write_results("value_swaps", found, args.json_out)
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
