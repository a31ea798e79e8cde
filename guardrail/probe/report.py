"""The probe's figures: counts per outcome, per rule type and per relation; the terminal tables
and the JSON report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from guardrail.probe.run import RULES, ProbeRecord, ProbeRun
from guardrail.render import print_table

OUTCOMES = ("correct", "refused", "wrong_knowledge", "wrong_inference", "both", "unparsed", "error")
HEADERS = {
    "correct": "correct",
    "refused": "refused",
    "wrong_knowledge": "wrong knowledge",
    "wrong_inference": "wrong inference",
    "both": "both",
    "unparsed": "unparsed",
    "error": "errors",
}


def tally(records: Iterable[ProbeRecord]) -> dict[str, Any]:
    """Questions, each outcome's count, hallucinations and their share of answered questions."""
    counts = Counter(r.outcome or "error" for r in records)
    total = sum(counts.values())
    found = sum(counts[o] for o in ("wrong_knowledge", "wrong_inference", "both"))
    answered = total - counts["error"] - counts["unparsed"]
    return {
        "questions": total,
        **{o: counts[o] for o in OUTCOMES},
        "hallucinations": found,
        "hallucination_rate": found / answered if answered else None,
    }


def _grouped(records: Sequence[ProbeRecord], key: str, order: Sequence[str] = ()) -> dict[str, Any]:
    groups: dict[str, list[ProbeRecord]] = {}
    for record in records:
        groups.setdefault(str(getattr(record, key)), []).append(record)
    names = [n for n in order if n in groups] + sorted(n for n in groups if n not in order)
    return {name: tally(groups[name]) for name in names}


def summarize(records: Sequence[ProbeRecord]) -> dict[str, Any]:
    """Overall, per rule type, per relation and per question form."""
    return {
        "overall": tally(records),
        "by_rule": _grouped(records, "rule", RULES),
        "by_relation": _grouped(records, "relation"),
        "by_form": _grouped(records, "form", ("template", "synonym", "mutation", "negation")),
    }


#: The terminal's headers: the two long ones abbreviated so both tables fit 80 columns.
SHORT_HEADERS = {
    **HEADERS,
    "wrong_knowledge": "wrong knowl.",
    "wrong_inference": "wrong infer.",
}


def _table(title: str, first: str, blocks: dict[str, Any], total: dict[str, Any]) -> Table:
    """Counts and rates are ``no_wrap`` (never cut); names of rules and relations may wrap."""
    table = Table(title=title, title_justify="left")
    table.add_column(first)
    for column in ("asked", *(SHORT_HEADERS[o] for o in OUTCOMES), "halluc. %"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, block in [*blocks.items(), ("all", total)]:
        rate = block["hallucination_rate"]
        table.add_row(
            name,
            str(block["questions"]),
            *(str(block[o]) for o in OUTCOMES),
            "-" if rate is None else f"{100 * rate:.1f}",
            style="bold" if name == "all" else None,
        )
    return table


def print_tables(console: Console, summary: dict[str, Any]) -> None:
    """A table per rule type and one per relation."""
    total = summary["overall"]
    print_table(_table("by rule type", "rule", summary["by_rule"], total), console)
    print_table(_table("by relation", "relation", summary["by_relation"], total), console)


def report(
    run: ProbeRun,
    *,
    facts: str,
    chatbot: str,
    judge: str,
    counts: dict[str, int],
    settings: dict[str, Any],
) -> dict[str, Any]:
    """The JSON report: where it came from, the figures, and every question's record."""
    return {
        "facts": facts,
        "chatbot": chatbot,
        "judge": judge,
        "knowledge": counts,
        "settings": settings,
        "run": {
            "wall_seconds": run.wall_seconds,
            "asked_this_run": run.asked,
            "failed_this_run": run.failed,
            "resumed": run.resumed,
        },
        **summarize(run.records),
        "questions": [r.model_dump(mode="json") for r in run.records],
    }
