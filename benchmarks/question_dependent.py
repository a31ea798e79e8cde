"""Short answers that lean on their question, under the shipped default policy.

Each case of ``benchmarks/data/question_dependent_{dev,test}.jsonl`` is a question, one
retrieved passage, a faithful short answer and a wrong one ("Can pregnant women take
ibuprofen?" / "No." / "Yes."), of one kind: yes/no, number, name, place, date, time, a
can/must/may question, a negated question ("Isn't it ...?") or a reply through a pronoun or
an ellipsis. Each answer goes through :class:`guardrail.Guard` with ``policies/default.yaml``:

* a wrong answer is *caught* when the decision is anything but ``pass``;
* a faithful answer is *kept* when the decision is ``pass``.

Two judges: the offline judge the policy ships with (``paper`` protocol), and the test judge
(:class:`guardrail.testing.TestJudge`) driving the ``answer`` protocol, its verdicts taken from
the offline verifier — so the second run shows the path an LLM judge takes (the question in the
decomposition prompt, one mutation and one verification call per answer), not an LLM's skill.

    python -m benchmarks.question_dependent
        [--half test|dev|both|holdout|unseen|unseen2|...|unseen13]
        [--ragtruth] [--out PATH]

``--ragtruth`` also counts the RAGTruth dev answers (``../shared/data``) the resolution step
changes at all — read with their question or taken as a refusal. Every other answer reaches
the decomposer byte for byte as before, so long-form figures can move only through these.

Prints caught / kept per kind for each judge and writes
``benchmarks/results/question_dependent.json``. The development half was used to write the
resolution rules; report the test half. ``question_dependent_holdout.jsonl`` was written later,
by another method (multi-sentence FAQ passages, multi-sentence answers, wrong values that
appear elsewhere in the passage), before the rules it measures were changed: report it beside
the test half and never tune on it. ``question_dependent_unseen.jsonl`` (``--half unseen``, 60
pairs) was written later still, by a separate author who did not read the resolution rules or
the judge. ``question_dependent_unseen2.jsonl`` (``--half unseen2``, 60 pairs) is a second
such set by another separate author, written after the first had been used for development;
``question_dependent_unseen3.jsonl`` (``--half unseen3``, 60 pairs) a third, written after the
second had been used for development; ``question_dependent_unseen4.jsonl`` (``--half unseen4``,
60 pairs) a fourth, written after the third had been measured;
``question_dependent_unseen5.jsonl`` (``--half unseen5``, 60 pairs) a fifth, written after the
fourth had been used for development; ``question_dependent_unseen6.jsonl`` (``--half
unseen6``, 60 pairs) a sixth, written after the fifth had been used for development;
``question_dependent_unseen7.jsonl`` (``--half unseen7``, 60 pairs) a seventh, written after
the sixth had been measured; ``question_dependent_unseen8.jsonl`` (``--half unseen8``, 60
pairs) an eighth, written before the seventh was used for development;
``question_dependent_unseen9.jsonl`` (``--half unseen9``, 60 pairs) a ninth, written before the
eighth was used for development; ``question_dependent_unseen10.jsonl`` (``--half unseen10``, 60
pairs) a tenth, written before the ninth was used for development;
``question_dependent_unseen11.jsonl`` (``--half unseen11``, 60 pairs) an eleventh, written
before the tenth was used for development; ``question_dependent_unseen12.jsonl`` (``--half
unseen12``, 60 pairs) a twelfth, written before the eleventh was used for development;
``question_dependent_unseen13.jsonl`` (``--half unseen13``, 60 pairs) a thirteenth, written
before the twelfth was used for development: the closest figure to unseen traffic.

Beside caught and kept, each table counts the wrong answers caught *on a conflict*: a verifier
said NO to a factoid's synonym or YES to its antonym. The others are caught only because
nothing in the passage supports them, which a faithful answer in other words shares.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, stated_conflict, write_results
from guardrail import Guard
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.verify import Support
from guardrail.models import Label
from guardrail.policy import load_policy
from guardrail.testing import TestJudge

DATA = Path("benchmarks") / "data"
POLICY = Path("policies") / "default.yaml"
_LABELS = {Support.SUPPORTED: Label.YES, Support.CONTRADICTED: Label.NO}


def load_half(half: str) -> list[dict[str, Any]]:
    """The cases of one half (``dev``, ``test``, ``holdout`` or an ``unseen`` set)."""
    path = repo_root() / DATA / f"question_dependent_{half}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def offline_rule() -> Any:
    """The test judge's verdict rule: the offline verifier's label for one statement."""
    verifier = LocalJudge().verifier

    def rule(statement: str, context: str) -> Label:
        (found,) = verifier.check([statement], context)
        return _LABELS.get(found.outcome, Label.NOT_SURE)

    return rule


@contextmanager
def guards() -> Iterator[dict[str, Guard]]:
    """The default policy's guard with its own judge, and with the test judge (answer
    protocol); escalations go to a throw-away review queue, no audit trail is written."""
    policy = load_policy(repo_root() / POLICY)
    answer_protocol = policy.model_copy(
        update={"scorer": policy.scorer.model_copy(update={"protocol": "answer"})}
    )
    with tempfile.TemporaryDirectory() as tmp:
        made = {
            "offline (paper)": Guard.from_yaml(
                policy,
                audit_log=None,
                review_db=Path(tmp) / "a.db",
                fallback_log=Path(tmp) / "a.jsonl",
            ),
            "test judge (answer)": Guard.from_yaml(
                answer_protocol,
                judge=TestJudge(offline_rule()),
                audit_log=None,
                review_db=Path(tmp) / "b.db",
                fallback_log=Path(tmp) / "b.jsonl",
            ),
        }
        try:
            yield made
        finally:
            for guard in made.values():
                guard.close()


def run_case(guard: Guard, case: dict[str, Any], which: str) -> dict[str, Any]:
    """One answer of a case through the guard: its decision, status and statements."""
    result = guard.check(case["question"], case[which], [case["context"]])
    report = result.report
    return {
        "id": case["id"],
        "kind": case["kind"],
        "topic": case["topic"],
        "answer": which,
        "action": result.decision.action,
        "score": None if report is None else report.score,
        "status": None if report is None else report.status,
        "resolved": [] if report is None else [s.text for s in report.resolved],
        "stated": stated_conflict(report),
        "decided_topic": result.decision.topic,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per kind and overall: wrong answers caught (not passed), faithful ones kept (passed)."""
    per: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        for key in (row["kind"], "all"):
            cell = per[key]
            if row["answer"] == "wrong":
                cell["wrong"] += 1
                cell["caught"] += row["action"] != "pass"
                cell["stated"] += row["action"] != "pass" and bool(row.get("stated"))
            else:
                cell["faithful"] += 1
                cell["kept"] += row["action"] == "pass"
    return {kind: dict(cell) for kind, cell in sorted(per.items(), key=lambda kv: kv[0] == "all")}


def ragtruth_changes() -> dict[str, Any]:
    """The RAGTruth dev answers whose decomposer input the resolution step changes."""
    from benchmarks._common import require_data
    from guardrail.scoring.resolve import resolve

    path = require_data("ragtruth", "dev.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    changed = []
    for row in rows:
        found = resolve(row["question"], row["answer"])
        if found.abstention or found.text != row["answer"]:
            changed.append(
                {
                    "id": row["id"],
                    "label": row["label"],
                    "abstention": found.abstention,
                    "statements": [s.text for s in found.statements],
                }
            )
    return {"rows": len(rows), "changed": changed}


def table(title: str, per: dict[str, dict[str, int]]) -> Table:
    out = Table(title=title)
    for column in ("kind", "wrong caught", "on a conflict", "faithful kept"):
        out.add_column(column, justify="left" if column == "kind" else "right")
    for kind, cell in per.items():
        caught = f"{cell.get('caught', 0)}/{cell.get('wrong', 0)}"
        stated = f"{cell.get('stated', 0)}/{cell.get('wrong', 0)}"
        kept = f"{cell.get('kept', 0)}/{cell.get('faithful', 0)}"
        out.add_row(kind, caught, stated, kept)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--half",
        choices=("test", "dev", "both", "holdout", "unseen", *(f"unseen{n}" for n in range(2, 15))),
        default="test",
    )
    parser.add_argument("--out", default=None, help="results JSON path")
    parser.add_argument(
        "--ragtruth", action="store_true", help="count the RAGTruth dev answers it changes"
    )
    args = parser.parse_args(argv)
    halves = ("dev", "test") if args.half == "both" else (args.half,)
    console = Console()
    results: dict[str, Any] = {}
    with guards() as made:
        for half in halves:
            cases = load_half(half)
            for name, guard in made.items():
                rows = [run_case(guard, c, w) for c in cases for w in ("wrong", "faithful")]
                per = summary(rows)
                console.print(table(f"{half} half, {name}: {len(cases)} cases", per))
                results[f"{half}/{name}"] = {"summary": per, "rows": rows}
    if args.ragtruth:
        changes = ragtruth_changes()
        results["ragtruth_dev"] = changes
        console.print(
            f"RAGTruth dev: the resolution step changes {len(changes['changed'])} of "
            f"{changes['rows']} answers"
        )
        for row in changes["changed"]:
            console.print(f"  {row['id']} (label {row['label']}): {row}")
    path = write_results(
        "question_dependent", {"policy": str(POLICY), "results": results}, args.out
    )
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
