"""How fast ``guardrail probe`` runs its own part: 1,000 generated questions against a scripted
chatbot on one core (target: under 60 s).

A synthetic fact base (drugs in class chains, contraindications, symmetric interactions; the
relations of examples/probe/healthcare.yaml) goes through clingo and the question templates;
the first 1,000 questions are asked, one at a time, of :class:`BeliefChatbot` holding the facts
with every tenth one seeded wrong, so the oracle path (knowledge points read into triples by
the offline extractor, similarity oracles) runs on the replies it gets wrong. Progress is
written to a progress file as in a real run. The process is pinned to one CPU when the OS
allows it.

    python benchmarks/probe_speed.py [--questions 1000] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import FactBase, Triple, load_facts
from guardrail.probe.run import Prober, plan, progress_file
from guardrail.probe.scripted import BeliefChatbot

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "examples" / "probe" / "healthcare.yaml"
TARGET_S = 60.0


def synthetic(drugs: int) -> FactBase:
    """``drugs`` drugs, each in a class of a three-level class chain, contraindicated in one
    period, interacting with the next drug."""
    relations = load_facts(CATALOGUE).relations
    facts: list[list[str]] = []
    classes = max(2, drugs // 8)
    for c in range(classes):
        facts.append([f"class {c}", "belongs_to", f"group {c % 4}"])
    for g in range(4):
        facts.append([f"group {g}", "belongs_to", "the medicine family"])
    for d in range(drugs):
        facts.append([f"drug {d}", "belongs_to", f"class {d % classes}"])
        facts.append([f"drug {d}", "contraindicated_in", f"period {d % 5}"])
        facts.append([f"drug {d}", "interacts_with", f"drug {(d + 1) % drugs}"])
    return FactBase(relations=relations, facts=[Triple.model_validate(f) for f in facts])


def seeded(base: FactBase, every: int = 10) -> FactBase:
    """Every ``every``-th fact with a wrong object."""
    facts = [
        f.model_copy(update={"object": f"{f.object} (wrong)"}) if i % every == 0 else f
        for i, f in enumerate(base.facts)
    ]
    return base.model_copy(update={"facts": facts})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--json-out", default="benchmarks/results/probe_speed.json")
    args = ap.parse_args()
    pinned = False
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        pinned = True
    base = synthetic(drugs=max(8, args.questions // 25))

    started = time.perf_counter()
    asked = plan(base, limit=args.questions)
    planning_s = time.perf_counter() - started
    if len(asked) < args.questions:
        raise SystemExit(f"only {len(asked)} questions from the synthetic facts")
    chatbot = BeliefChatbot(seeded(base), asked)
    prober = Prober(chatbot, TripleExtractor(OfflineExtractor(), base.relations))
    with tempfile.TemporaryDirectory() as tmp:
        progress = progress_file(Path(tmp) / "progress.jsonl", "benchmark", "local")
        started = time.perf_counter()
        run = asyncio.run(prober.run(asked, jobs=1, progress_file=progress))
        probing_s = time.perf_counter() - started
    hallucinations = sum(1 for r in run.records if r.hallucination)
    total_s = planning_s + probing_s
    rows = [
        ("triples", str(len(base.facts))),
        ("questions asked", str(len(run.records))),
        ("hallucinations found", str(hallucinations)),
        ("derive + generate (s)", f"{planning_s:.2f}"),
        ("ask + judge (s)", f"{probing_s:.2f}"),
        ("total (s)", f"{total_s:.2f}"),
        ("per question (ms)", f"{1000 * probing_s / len(run.records):.2f}"),
        (f"target < {TARGET_S:g} s", "met" if total_s < TARGET_S else "NOT met"),
    ]
    table = Table(title=f"probe speed: {len(run.records)} questions, one core")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    payload = {
        "benchmark": "probe_speed",
        "triples": len(base.facts),
        "questions": len(run.records),
        "hallucinations": hallucinations,
        "planning_seconds": planning_s,
        "probing_seconds": probing_s,
        "total_seconds": total_s,
        "target_seconds": TARGET_S,
        "met": total_s < TARGET_S,
        "pinned_to_one_cpu": pinned,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
