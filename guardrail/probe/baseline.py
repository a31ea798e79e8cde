"""Compare a probe run with an earlier one, and decide a CI gate's exit status.

``guardrail probe --baseline PREVIOUS.json`` reads the JSON report of an earlier run
(``--json-out``) and sets, for the whole run, each rule type and each relation, the
hallucination rate then and now, each with a 95 % Wilson score interval, and the questions
(matched by their stable id) that a reply got right or refused before and gets wrong now.

A group *regressed* when its rate rose by more than chance explains: the 95 % interval of the
difference of the two rates (Newcombe's hybrid score interval, built from the two Wilson
intervals) lies wholly above zero. A few questions turning wrong on a small group is reported
but is not a regression by itself.

:func:`gate` turns the run (and the comparison) into the reasons for a failing exit status:
``--fail-over RATE`` fails a run whose hallucination rate is above ``RATE`` — or whose share
of replies without a verdict is, since a reply nobody can read is no evidence the model is
right — and ``--fail-on-regression`` fails a run with a regressed group. Calls that failed
always fail the gate: missing signal is never a pass.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from guardrail.exceptions import ConfigError
from guardrail.probe.oracles import HALLUCINATIONS
from guardrail.probe.run import RULES, ProbeRecord
from guardrail.render import print_table

Z95 = 1.959963984540054
_UNANSWERED = ("error", "unparsed")


def wilson(hits: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``hits / total`` (``None`` when ``total`` is 0)."""
    if total <= 0:
        return None
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Rate:
    """Hallucinations among answered questions, with a 95 % interval."""

    hallucinations: int
    answered: int

    @property
    def rate(self) -> float | None:
        return self.hallucinations / self.answered if self.answered else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.hallucinations, self.answered)

    def as_dict(self) -> dict[str, Any]:
        interval = self.interval
        return {
            "hallucinations": self.hallucinations,
            "answered": self.answered,
            "rate": self.rate,
            "ci95": list(interval) if interval else None,
        }


def difference_interval(then: Rate, now: Rate) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (95 %) of ``now.rate - then.rate``."""
    a, b = then.interval, now.interval
    if a is None or b is None or then.rate is None or now.rate is None:
        return None
    p1, p2 = then.rate, now.rate
    d = p2 - p1
    low = d - math.sqrt((p2 - b[0]) ** 2 + (a[1] - p1) ** 2)
    high = d + math.sqrt((b[1] - p2) ** 2 + (p1 - a[0]) ** 2)
    return low, high


@dataclass(frozen=True)
class Row:
    """One group (``overall``, a rule type or a relation) then and now."""

    group: str
    name: str
    then: Rate
    now: Rate

    @property
    def difference(self) -> tuple[float, float] | None:
        return difference_interval(self.then, self.now)

    @property
    def regressed(self) -> bool:
        diff = self.difference
        return diff is not None and diff[0] > 0

    def as_dict(self) -> dict[str, Any]:
        diff = self.difference
        return {
            "group": self.group,
            "name": self.name,
            "then": self.then.as_dict(),
            "now": self.now.as_dict(),
            "difference_ci95": list(diff) if diff else None,
            "regressed": self.regressed,
        }


@dataclass
class Comparison:
    """Every group's rates then and now, and the questions that turned wrong."""

    source: str
    rows: list[Row] = field(default_factory=list)
    turned_wrong: list[dict[str, Any]] = field(default_factory=list)
    turned_right: int = 0
    common: int = 0

    @property
    def regressions(self) -> list[Row]:
        return [row for row in self.rows if row.regressed]

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.source,
            "common_questions": self.common,
            "rows": [row.as_dict() for row in self.rows],
            "regressions": [f"{r.group} {r.name}" for r in self.regressions],
            "turned_wrong": self.turned_wrong,
            "turned_right": self.turned_right,
        }


def load_baseline(path: str | Path) -> list[dict[str, Any]]:
    """The question records of an earlier ``--json-out`` report; ``ConfigError`` (one line)
    when the file is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--baseline {path}: cannot read ({exc})") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ConfigError(f"--baseline {path}: not JSON ({exc})") from None
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        raise ConfigError(f"--baseline {path}: not a probe report (no 'questions' list)")
    out = []
    for i, item in enumerate(questions):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("id", "rule", "relation")
        ):
            raise ConfigError(f"--baseline {path}: questions[{i}] is not a probe record")
        out.append(item)
    return out


def _rate(items: Sequence[dict[str, Any]]) -> Rate:
    answered = [i for i in items if (i.get("outcome") or "error") not in _UNANSWERED]
    return Rate(sum(1 for i in answered if i.get("outcome") in HALLUCINATIONS), len(answered))


def _groups(items: Sequence[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        out.setdefault(str(item[key]), []).append(item)
    return out


def compare(
    previous: Sequence[dict[str, Any]], records: Sequence[ProbeRecord], source: str
) -> Comparison:
    """This run's ``records`` against the ``previous`` report's (see the module docstring)."""
    now = [r.model_dump(mode="json") for r in records]
    comparison = Comparison(source)
    comparison.rows.append(Row("overall", "all", _rate(previous), _rate(now)))
    for key, order in (("rule", RULES), ("relation", ())):
        before, after = _groups(previous, key), _groups(now, key)
        names = [n for n in order if n in before or n in after]
        names += sorted((set(before) | set(after)) - set(names))
        for name in names:
            row = Row(key, name, _rate(before.get(name, [])), _rate(after.get(name, [])))
            comparison.rows.append(row)
    then_by_id = {item["id"]: item for item in previous}
    for item in now:
        old = then_by_id.get(item["id"])
        if old is None:
            continue
        comparison.common += 1
        was_wrong = old.get("outcome") in HALLUCINATIONS
        is_wrong = item.get("outcome") in HALLUCINATIONS
        if is_wrong and not was_wrong and old.get("outcome") not in _UNANSWERED:
            comparison.turned_wrong.append(
                {"id": item["id"], "question": item["question"], "rule": item["rule"],
                 "relation": item["relation"], "triple": item["triple"],
                 "expected": item["expected"],
                 "then": old.get("outcome"), "now": item.get("outcome"),
                 "verdict": item.get("verdict")}
            )  # fmt: skip
        elif was_wrong and item.get("outcome") == "correct":
            comparison.turned_right += 1
    return comparison


def _pct(rate: Rate) -> str:
    if rate.rate is None:
        return "-"
    low, high = rate.interval or (0.0, 0.0)
    counts = f"({rate.hallucinations}/{rate.answered})"
    return f"{100 * rate.rate:.1f} [{100 * low:.1f}, {100 * high:.1f}] {counts}"


def print_comparison(console: Console, comparison: Comparison, limit: int = 10) -> None:
    """The comparison table and the first ``limit`` questions that turned wrong."""
    table = Table(
        title=f"compared with {comparison.source} (hallucination %, 95 % interval)",
        title_justify="left",
    )
    for column in ("group", "name", "then", "now", "change"):  # figures never break
        table.add_column(column, no_wrap=column in ("then", "now", "change"))
    for row in comparison.rows:
        change = "-"
        if row.then.rate is not None and row.now.rate is not None:
            change = f"{100 * (row.now.rate - row.then.rate):+.1f}"
        flag = " regression" if row.regressed else ""
        table.add_row(
            row.group, row.name, _pct(row.then), _pct(row.now), change + flag,
            style="bold red" if row.regressed else ("bold" if row.group == "overall" else None),
        )  # fmt: skip
    print_table(table, console)
    wrong = comparison.turned_wrong
    console.print(
        f"{len(wrong)} of {comparison.common} questions asked both times turned wrong, "
        f"{comparison.turned_right} turned right"
    )
    for item in wrong[:limit]:
        console.print(
            f"  [{item['rule']}] {item['question']} (expected {item['expected']}, "
            f"{item['then']} -> {item['now']})",
            markup=False,
        )
    if len(wrong) > limit:
        console.print(f"  ... and {len(wrong) - limit} more (see the JSON report)")


def gate(
    overall: dict[str, Any],
    comparison: Comparison | None,
    *,
    fail_over: float | None,
    fail_on_regression: bool,
) -> list[str]:
    """Why the run fails its gate (empty: it passes); see the module docstring."""
    reasons = []
    if overall["error"]:
        reasons.append(f"{overall['error']} questions failed (no reply to judge)")
    if fail_over is not None:
        rate = overall["hallucination_rate"]
        unparsed_share = overall["unparsed"] / overall["questions"] if overall["questions"] else 0
        if rate is None:
            reasons.append("no reply had a verdict: the hallucination rate is unknown")
        elif rate > fail_over:
            reasons.append(f"hallucination rate {100 * rate:.1f} % is over {100 * fail_over:g} %")
        if unparsed_share > fail_over:
            reasons.append(
                f"{100 * unparsed_share:.1f} % of replies had no verdict, over "
                f"{100 * fail_over:g} %"
            )
    if fail_on_regression:
        if comparison is None:
            raise ConfigError("--fail-on-regression needs --baseline PREVIOUS.json")
        for row in comparison.regressions:
            low, high = row.difference or (0.0, 0.0)
            reasons.append(
                f"regression in {row.group} {row.name}: {_pct(row.then)} -> {_pct(row.now)} "
                f"(difference {100 * low:+.1f} to {100 * high:+.1f} points)"
            )
    return reasons
