"""The HTML report a reviewer reads: one self-contained page, no scripts.

Figures per rule type and relation, then every question the chatbot got wrong (or whose reply
could not be read, or that failed): the question, the expected answer, the reply with its
conflicting parts marked (the wrong verdict, and each knowledge point whose triples are not in
the ground truth's structure), the triples read from it, the similarities and the derivation.
The rest are listed briefly. Every piece of text is escaped: replies are untrusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from guardrail.actions.highlight import marked_pieces
from guardrail.models import Span
from guardrail.probe.report import HEADERS, OUTCOMES
from guardrail.probe.run import ProbeRecord

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}
th:first-child,td:first-child{text-align:left}
section.case{border:1px solid #ddd;border-left:.4rem solid #c62828;padding:.5rem 1rem;
margin:1rem 0}
section.case.unparsed,section.case.error{border-left-color:#f9a825}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
mark{background:#ffcdd2}
.meta{color:#555;font-size:.9em}
"""
_VERDICT = re.compile(r"^\W*(\w+)")


def _figures(title: str, first: str, blocks: dict[str, Any], total: dict[str, Any]) -> str:
    head = "".join(
        f"<th>{escape(c)}</th>"
        for c in (first, "asked", *(HEADERS[o] for o in OUTCOMES), "halluc. %")
    )
    rows = []
    for name, block in [*blocks.items(), ("all", total)]:
        rate = block["hallucination_rate"]
        cells = [str(block["questions"]), *(str(block[o]) for o in OUTCOMES)]
        cells.append("-" if rate is None else f"{100 * rate:.1f}")
        rows.append(
            f"<tr><td>{escape(name)}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        )
    return f"<h3>{escape(title)}</h3><table><tr>{head}</tr>{''.join(rows)}</table>"


def conflict_spans(record: ProbeRecord) -> list[Span]:
    """Where the reply conflicts with the ground truth: a wrong verdict word and every
    conflicting knowledge point (found in the reply text)."""
    reply = record.reply
    spans: list[Span] = []
    if record.outcome in ("wrong_knowledge", "wrong_inference", "both"):
        match = _VERDICT.match(reply)
        if match:
            spans.append(match.span(1))
    cursor = 0
    for index, point in enumerate(record.knowledge):
        start = reply.find(point, cursor)
        if start < 0:
            continue
        cursor = start + len(point)
        if index in record.conflicts:
            spans.append((start, cursor))
    return spans


def marked_reply(record: ProbeRecord) -> str:
    """The reply, escaped, with its conflicting parts in ``<mark>``."""
    out = []
    for (start, end), marked in marked_pieces(record.reply, conflict_spans(record)):
        piece = escape(record.reply[start:end])
        out.append(f"<mark>{piece}</mark>" if marked else piece)
    return "".join(out)


def _case(record: ProbeRecord) -> str:
    s, r, o = record.triple
    similarities = ""
    if record.node_similarity is not None and record.edge_similarity is not None:
        similarities = (
            f" · node similarity {record.node_similarity:.2f}"
            f" · edge similarity {record.edge_similarity:.2f}"
        )
    triples = "".join(
        f"<li>point {i + 1}: " + "; ".join(escape(f"({a}, {b}, {c})") for a, b, c in ts) + "</li>"
        for i, ts in enumerate(record.knowledge_triples)
        if ts
    )
    reply = marked_reply(record) if record.ok else escape(record.error or "")
    kind = escape(record.outcome or "error")
    return (
        f'<section class="case {kind}">'
        f"<h3>{escape(record.question)}</h3>"
        f'<p class="meta">outcome <b>{kind}</b> · expected <b>{escape(record.expected)}</b>'
        f" · verdict <b>{escape(record.verdict or '-')}</b> · rule {escape(record.rule)}"
        f" · {escape(record.form)} · triple {escape(f'({s}, {r}, {o})')}{similarities}"
        + (f" · {escape(record.note)}" if record.note else "")
        + "</p>"
        f"<h4>{'reply' if record.ok else 'error'}</h4><pre>{reply}</pre>"
        + (f"<h4>triples read from the reply</h4><ul>{triples}</ul>" if triples else "")
        + f"<h4>derivation</h4><pre>{escape(chr(10).join(record.derivation))}</pre></section>"
    )


def _comparison(report: dict[str, Any]) -> str:
    """The gate's outcome and the comparison with the baseline, when the run had them."""
    out = ""
    gate = report.get("gate")
    if gate is not None:
        verdict = "passed" if gate["passed"] else "failed"
        reasons = "".join(f"<li>{escape(r)}</li>" for r in gate["reasons"])
        out += f"<h2>Gate {verdict}</h2>" + (f"<ul>{reasons}</ul>" if reasons else "")
    comparison = report.get("comparison")
    if comparison is not None:
        wrong = comparison["turned_wrong"]
        items = "".join(
            f"<li>{escape(w['question'])} (expected {escape(w['expected'])}; "
            f"{escape(str(w['then']))} &rarr; {escape(str(w['now']))})</li>"
            for w in wrong
        )
        regressions = ", ".join(escape(r) for r in comparison["regressions"]) or "none"
        out += (
            f"<h2>Compared with {escape(comparison['baseline'])}</h2>"
            f"<p class='meta'>regressions: {regressions} · {len(wrong)} questions turned wrong, "
            f"{comparison['turned_right']} turned right</p>"
            + (f"<ul>{items}</ul>" if items else "")
        )
    return out


def render_html(report: dict[str, Any], records: Sequence[ProbeRecord]) -> str:
    """The whole page for a report (:func:`~guardrail.probe.report.report`) and its records."""
    cases = [r for r in records if r.outcome not in ("correct", "refused")]
    rest = [r for r in records if r.outcome in ("correct", "refused")]
    listed = "".join(
        f"<tr><td>{escape(r.question)}</td><td>{escape(r.expected)}</td>"
        f"<td>{escape(r.outcome or '')}</td><td>{escape(r.rule)}</td></tr>"
        for r in rest
    )
    title = f"guardrail probe: {report['chatbot']} on {report['facts']}"
    knowledge = report["knowledge"]
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f"<p class='meta'>judge {escape(report['judge'])} · {knowledge['triples']} triples, "
        f"{knowledge['derived']} derived, {knowledge['questions']} questions</p>"
        + _figures("by rule type", "rule", report["by_rule"], report["overall"])
        + _figures("by relation", "relation", report["by_relation"], report["overall"])
        + _comparison(report)
        + f"<h2>To review ({len(cases)})</h2>"
        + ("".join(_case(r) for r in cases) or "<p>Nothing: every reply was right or honest.</p>")
        + f"<details><summary>The other {len(rest)} questions (correct or refused)</summary>"
        f"<table><tr><th>question</th><th>expected</th><th>outcome</th><th>rule</th></tr>"
        f"{listed}</table></details></body></html>\n"
    )
