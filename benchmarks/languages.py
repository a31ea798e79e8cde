"""Turns in seven languages under a policy: language identification, topics, and what the
guard decides on contradicted and faithful answers.

    python -m benchmarks.languages
        [--split test|dev|all|holdout|unseen|unseen2|...|unseen13]
        [--policy policies/default.yaml]
        [--detectors] [--topics-only] [--json-out PATH]

The suites are ``benchmarks/data/languages/<code>.jsonl`` (one question, one passage, a
faithful restatement and a single-fact contradiction per line, with the gold topic and a
``split``: development or test half), ``holdout/<code>.jsonl`` (``--split holdout``: suites
written later and never tuned on), ``unseen/<code>.jsonl`` (``--split unseen``: 20 turns per
language written natively by a separate author who did not read the judge's code, after the
holdout had been looked at by kind; its finer topic labels are mapped onto the policy's, see
``UNSEEN_TOPICS``), ``unseen2/<code>.jsonl`` (``--split unseen2``: 14 turns per language by
another separate author, written after ``unseen`` had been used for development),
``unseen3/<code>.jsonl`` (``--split unseen3``: 14 turns per language by a third separate author,
written after ``unseen2`` had been used for development), ``unseen4/<code>.jsonl`` (``--split
unseen4``: a fourth separate author, written after ``unseen3`` had been measured),
``unseen5/<code>.jsonl`` (``--split unseen5``: written after ``unseen4`` had been used for
development), ``unseen6/<code>.jsonl`` (``--split unseen6``: written after ``unseen5`` had been
used for development), ``unseen7/<code>.jsonl`` (``--split unseen7``: written after
``unseen6`` had been measured), ``unseen8/<code>.jsonl`` (``--split unseen8``: written before
``unseen7`` was used for development), ``unseen9/<code>.jsonl`` (``--split unseen9``: written
before ``unseen8`` was used for development), ``unseen10/<code>.jsonl`` (``--split unseen10``:
written before ``unseen9`` was used for development), ``unseen11/<code>.jsonl`` (``--split
unseen11``: written before ``unseen10`` was used for development), ``unseen12/<code>.jsonl``
(``--split unseen12``: written before ``unseen11`` was used for development),
``unseen13/<code>.jsonl`` (``--split unseen13``: written before ``unseen12`` was used for
development) and
``short.jsonl`` (replies of three
to six words, for language identification only). They were written before the language work was
tuned; report the test half.

Per language it prints:

* **language id**: texts whose detected language is right (questions, passages, answers and
  the short replies), and the mean time per text and per turn;
* **topic right**: questions whose applied rule (the strictest detected topic) is the gold
  topic's, and **sensitive→general**: sensitive questions given the default topic;
* **caught**: contradicted answers the policy did not pass (any action but ``pass``),
  **kept**: faithful restatements it passed; both with the turn's detected languages and the
  policy's languages rule, as a guard would decide; **on a conflict**: the contradicted
  answers caught with a stated conflict (a NO to a factoid's synonym or a YES to its
  antonym), not only for lack of support, which reworded faithful answers share;
* **scored ≥ 0.8 / ≤ 0.3**: the judge's own view (MetaRAG with the policy's judge):
  contradictions scored at least 0.8, restatements at most 0.3.

``--topics-only`` reports the topic columns alone (no judge runs: a second or two).
``--detectors`` also measures the candidate detectors that are installed (py3langid,
lingua-language-detector) on the same texts. Writes ``benchmarks/results/languages.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, stated_conflict, write_results
from guardrail.judges.registry import make_judge
from guardrail.lang import detect, detect_turn
from guardrail.lang.detect import forget_detections
from guardrail.policy import PolicyEngine, load_policy
from guardrail.policy.schema import Policy, TopicRule
from guardrail.scoring import MetaRAG
from guardrail.topics import TopicClassifier

SUITES = Path("benchmarks") / "data" / "languages"
#: The suites written after the test half, never tuned on before they were measured.
HELD_OUT = ("holdout", "unseen", *(f"unseen{n}" for n in range(2, 15)))
#: The unseen suites' topic labels that the default policy names otherwise; a label the policy
#: has neither under its own name nor here is the policy's default topic.
UNSEEN_TOPICS = {"medication": "healthcare", "health": "healthcare"}
LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl")
CAUGHT = 0.8
KEPT = 0.3
ANSWERS = ("faithful", "contradicted")


def load(split: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The turn cases and the short replies of ``split`` (``all``: both halves; ``holdout``:
    the held-out suites, written later, with no short replies)."""
    root = repo_root() / SUITES
    folder = root / split if split in HELD_OUT else root
    turns: list[dict[str, Any]] = []
    for code in LANGUAGES:
        path = folder / f"{code}.jsonl"
        if split in HELD_OUT and not path.exists():
            print(f"{split}: no {code} suite; its row is empty")
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                turns.append({**json.loads(line), "language": code})
    short = [
        json.loads(line)
        for line in (root / "short.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    keep = (lambda c: True) if split == "all" else (lambda c: c["split"] == split)
    return [c for c in turns if keep(c)], [c for c in short if keep(c)]


def texts_of(turns: list[dict[str, Any]], short: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(gold language, text) for every text of the suites."""
    out = [
        (c["language"], c[k])
        for c in turns
        for k in ("question", "context", "faithful", "contradicted")
    ]
    return out + [(c["language"], c["text"]) for c in short]


def measure_detector(
    name: str, fn: Callable[[str], str], texts: list[tuple[str, str]]
) -> dict[str, Any]:
    """Accuracy per language and mean seconds per text of one detector (after a warm-up)."""
    fn("warm up the model")
    started = time.perf_counter()
    found = [fn(text) for _, text in texts]
    seconds = time.perf_counter() - started
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (gold, _), got in zip(texts, found, strict=True):
        per[gold][0] += got == gold
        per[gold][1] += 1
    right = sum(r for r, _ in per.values())
    return {
        "detector": name,
        "right": right,
        "texts": len(texts),
        "per_language": {k: {"right": r, "texts": n} for k, (r, n) in sorted(per.items())},
        "us_per_text": round(seconds / len(texts) * 1e6, 1),
    }


def candidate_detectors() -> list[tuple[str, Callable[[str], str]]]:
    """The detectors compared with the shipped one, those that are installed."""
    out: list[tuple[str, Callable[[str], str]]] = [("fastText lid.176.ftz (shipped)", _shipped)]
    try:
        from py3langid.langid import _get_identifier

        ident = _get_identifier()
        out.append(("py3langid", lambda t: str(ident.classify(t)[0])))
    except ImportError:
        pass
    try:
        from lingua import Language, LanguageDetectorBuilder

        chosen = [
            Language.ENGLISH,
            Language.GERMAN,
            Language.FRENCH,
            Language.SPANISH,
            Language.ITALIAN,
            Language.PORTUGUESE,
            Language.DUTCH,
        ]
        lingua = LanguageDetectorBuilder.from_languages(*chosen).build()

        def lingua_code(text: str) -> str:
            found = lingua.detect_language_of(text)
            return found.iso_code_639_1.name.lower() if found else "und"

        out.append(("lingua (7 languages only)", lingua_code))
    except ImportError:
        pass
    return out


def _shipped(text: str) -> str:
    forget_detections()  # timed cold, as a text seen for the first time
    return detect(text).language


def gold_topic(policy: Policy, label: str) -> TopicRule:
    """The policy's rule for a suite's topic label (see ``UNSEEN_TOPICS``)."""
    label = UNSEEN_TOPICS.get(label, label)
    return policy.topic(label) if policy.has_topic(label) else policy.default_rule


def run(
    policy_path: Path, split: str, detectors: bool, topics_only: bool = False
) -> dict[str, Any]:
    turns, short = load(split)
    policy = load_policy(policy_path)
    engine = PolicyEngine(policy)
    classifier = TopicClassifier.from_policy(policy)
    judge_spec = policy.scorer.judge_specs()[0]
    scorer = MetaRAG(make_judge(judge_spec))
    default = policy.classifier.default_topic

    detect_turn("warm up", "the model", ["before timing"])
    rows: dict[str, dict[str, int]] = {code: defaultdict(int) for code in LANGUAGES}
    misses: list[dict[str, Any]] = []
    turn_seconds = 0.0
    for case in turns:
        row = rows[case["language"]]
        topics = classifier.classify(case["question"], [case["context"]])
        rule = engine.rule_for(topics)
        gold = gold_topic(policy, case["topic"])
        row["questions"] += 1
        row["topic_right"] += rule.name == gold.name
        if gold.sensitive:
            row["sensitive"] += 1
            row["sensitive_general"] += rule.name == default
        if rule.name != gold.name:
            misses.append({"id": case["id"], "what": "topic", "gold": gold.name, "got": rule.name})
        for kind in () if topics_only else ANSWERS:
            forget_detections()  # each turn timed cold: no text read before
            started = time.perf_counter()
            languages = detect_turn(case["question"], case[kind], [case["context"]])
            turn_seconds += time.perf_counter() - started
            report = scorer.score_sync(
                case["question"], case[kind], [case["context"]], threshold=rule.threshold
            )
            decision = engine.decide(report, topics, languages=languages)
            passed = decision.action == "pass"
            if kind == "contradicted":
                row["contradicted"] += 1
                row["caught"] += not passed
                row["stated"] += not passed and stated_conflict(report)
                row["scored_high"] += report.score >= CAUGHT
            else:
                row["faithful"] += 1
                row["kept"] += passed
                row["scored_low"] += report.score <= KEPT
            if passed == (kind == "contradicted"):
                misses.append(
                    {
                        "id": case["id"],
                        "what": kind,
                        "score": round(report.score, 2),
                        "action": decision.action,
                        "languages": decision.languages.model_dump()
                        if decision.languages
                        else None,
                    }
                )
    answers = sum(r["faithful"] + r["contradicted"] for r in rows.values())
    texts = texts_of(turns, short)
    shipped = measure_detector("fastText lid.176.ftz (shipped)", _shipped, texts)
    compared = (
        [measure_detector(n, f, texts) for n, f in candidate_detectors()[1:]] if detectors else []
    )
    return {
        "split": split,
        "policy": str(policy_path),
        "judge": judge_spec,
        "per_language": {k: dict(v) for k, v in rows.items()},
        "language_id": shipped,
        "language_id_ms_per_turn": round(turn_seconds / max(answers, 1) * 1000, 3),
        "detectors": compared,
        "misses": misses,
    }


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.0%})" if d else "-"


def print_tables(found: dict[str, Any], console: Console) -> None:
    table = Table(title=f"languages, {found['split']} half, judge {found['judge']}")
    for col in (
        "lang",
        "lang id",
        "topic",
        "sens→gen",
        "caught",
        "on a conflict",
        "kept",
        "≥ 0.8",
        "≤ 0.3",
    ):
        table.add_column(col, justify="left" if col == "lang" else "right")
    lid = found["language_id"]["per_language"]
    for code, row in found["per_language"].items():
        ids = lid.get(code, {"right": 0, "texts": 0})
        table.add_row(
            code,
            _share(ids["right"], ids["texts"]),
            _share(row.get("topic_right", 0), row.get("questions", 0)),
            _share(row.get("sensitive_general", 0), row.get("sensitive", 0)),
            _share(row.get("caught", 0), row.get("contradicted", 0)),
            _share(row.get("stated", 0), row.get("contradicted", 0)),
            _share(row.get("kept", 0), row.get("faithful", 0)),
            _share(row.get("scored_high", 0), row.get("contradicted", 0)),
            _share(row.get("scored_low", 0), row.get("faithful", 0)),
        )
    console.print(table)
    detectors = [found["language_id"], *found["detectors"]]
    dt = Table(title="language identification on the suites' texts")
    for col in ("detector", "right", "µs per text"):
        dt.add_column(col, justify="left" if col == "detector" else "right")
    for d in detectors:
        dt.add_row(d["detector"], _share(d["right"], d["texts"]), f"{d['us_per_text']:.0f}")
    console.print(dt)
    console.print(
        f"language detection per turn (question, answer, passage): "
        f"{found['language_id_ms_per_turn']:.3f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("test", "dev", "all", *HELD_OUT), default="test")
    ap.add_argument("--policy", type=Path, default=repo_root() / "policies" / "default.yaml")
    ap.add_argument("--detectors", action="store_true", help="compare installed detectors")
    ap.add_argument(
        "--topics-only", action="store_true", help="the topic columns only (no judge runs)"
    )
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()
    console = Console(width=120)
    found = run(args.policy, args.split, args.detectors, args.topics_only)
    print_tables(found, console)
    path = write_results("languages", found, args.json_out)
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
