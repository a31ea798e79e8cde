"""Render the report's figures as one self-contained HTML page.

The page is built from the very mapping ``--json`` writes, so the two never disagree. It
holds no ``<script>``, no external stylesheet, font or image: styles are inline, charts are
inline SVG (:mod:`guardrail.report.svg`), so the file opens offline and can be archived as
evidence. Every text from the log is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from guardrail.report.svg import ACTION_COLOURS, hbars, histogram, stacked_bars

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:0;background:#f6f7f9}
main{max-width:1080px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccd}
h3{font-size:14px;margin:14px 0 4px}
.meta{color:#555}.warn{background:#fff3cd;border:1px solid #e0c36a;padding:8px 12px}
.bad{background:#f8d7da;border:1px solid #d99;padding:8px 12px}
.grid{display:flex;flex-wrap:wrap;gap:12px}.card{background:#fff;border:1px solid #dde;
padding:10px 12px;border-radius:6px}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #dde;padding:3px 8px;text-align:right}th{background:#eef1f5}
td.l,th.l{text-align:left}.muted{color:#777}svg.chart{display:block;max-width:100%;height:auto}
"""


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f'<th class="{"l" if i == 0 else ""}">{escape(c)}</th>' for i, c in enumerate(head))
    body = "".join(
        "<tr>"
        + "".join(f'<td class="{"l" if i == 0 else ""}">{c}</td>' for i, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _decisions(audit: Mapping[str, Any]) -> str:
    over = audit["decisions_over_time"]
    columns = list(over)
    out = [f"<p class='muted'>Turns per {audit['period']}, stacked by the action taken.</p>"]
    out.append('<div class="grid">')
    for topic in audit["topics"]:
        actions = [a for a in ACTION_COLOURS if any(a in over[c].get(topic, {}) for c in columns)]
        series = {a: [over[c].get(topic, {}).get(a, 0) for c in columns] for a in actions}
        out.append(
            f'<div class="card"><h3>{escape(topic)}</h3>'
            + stacked_bars(f"Decisions per {audit['period']}, topic {topic}", columns, series)
            + "</div>"
        )
    out.append("</div>")
    rows = []
    for topic, t in audit["topics"].items():
        acts = ", ".join(f"{escape(a)} {n}" for a, n in t["actions"].items())
        rows.append(
            [escape(topic), str(t["turns"]), str(t["scored"]), str(t["flagged"]),
             _pct(t["flag_rate"]), str(t["unscored"]), acts]
        )  # fmt: skip
    out.append(
        _table(["topic", "turns", "scored", "flagged", "flag rate", "unscored", "actions"], rows)
    )
    return "".join(out)


def _scores(audit: Mapping[str, Any]) -> str:
    out = [
        "<p class='muted'>Response scores of scored turns; red bars are at or above the "
        "topic's threshold (dashed line; the one most turns were decided with).</p>",
        '<div class="grid">',
    ]
    for topic, t in audit["topics"].items():
        seen = t["thresholds_seen"]
        note = (
            f"<p class='muted'>thresholds in this window: {', '.join(f'{v:g}' for v in seen)}</p>"
            if len(seen) > 1
            else ""
        )
        out.append(
            f'<div class="card"><h3>{escape(topic)}</h3>'
            + histogram(f"Score distribution, topic {topic}", t["score_histogram"], t["threshold"])
            + note
            + "</div>"
        )
    out.append("</div>")
    return "".join(out)


def _top(title: str, rows: list[list[Any]], empty: str) -> str:
    if not rows:
        return f"<h3>{escape(title)}</h3><p class='muted'>{escape(empty)}</p>"
    return f"<h3>{escape(title)}</h3>" + hbars(title, [(str(k), float(n)) for k, n in rows])


def _judges(judge: Mapping[str, Any]) -> str:
    out = [
        f"<p>{judge['calls']} judge calls, {judge['cached']} from the response cache, "
        f"{judge['failed']} failed.</p>"
    ]
    for key, title in (
        ("failures_by_cause", "Failed calls by cause"),
        ("unusable_by_cause", "Unusable replies by cause"),
        ("parse_fallbacks_by_cause", "Partly parsed replies by cause"),
    ):
        rows = [[k, n] for k, n in judge[key].items()]
        out.append(_top(title, rows, "none in this window"))
    lat = judge["latency_s"]
    rows = [
        [escape(k), str(v["n"]), _num(v["p50"], 3), _num(v["p90"], 3), _num(v["p99"], 3),
         _num(v["max"], 3)]
        for k, v in lat.items()
    ]  # fmt: skip
    out.append("<h3>Judge latency (seconds)</h3>")
    out.append(_table(["judge · stage", "calls", "p50", "p90", "p99", "max"], rows))
    if lat:
        bars = [(f"{k} p90", round(float(v["p90"] or 0), 3)) for k, v in lat.items()]
        out.append(hbars("Judge latency p90 per judge and stage", bars, unit=" s"))
    return "".join(out)


def _reviews(reviews: Mapping[str, Any] | None, in_log: Mapping[str, Any]) -> str:
    out: list[str] = []
    if reviews is None:
        out.append(
            "<p class='muted'>No review database given (--db): waiting and handling times "
            "need it. From the audit log alone:</p>"
        )
    else:
        rows = []
        for kind, groups in (("queue", reviews["by_queue"]), ("topic", reviews["by_topic"])):
            for name, g in groups.items():
                rows.append(
                    [f"{kind} {escape(name)}", str(g["cases"]), str(g["states"]["open"]),
                     str(g["states"]["claimed"]), str(g["states"]["resolved"]),
                     _num(g["wait_minutes"]["p50"]), _num(g["wait_minutes"]["p90"]),
                     _num(g["handling_minutes"]["p50"]), _num(g["handling_minutes"]["p90"]),
                     _pct(g["overturn_rate"]), _num(g["oldest_pending_hours"])]
                )  # fmt: skip
        out.append(
            _table(
                [
                    "",
                    "cases",
                    "open",
                    "claimed",
                    "resolved",
                    "wait p50 (min)",
                    "wait p90",
                    "handling p50 (min)",
                    "handling p90",
                    "overturned",
                    "oldest pending (h)",
                ],
                rows,
            )
        )
        bars = [
            (f"topic {t}", round(100 * (g["overturn_rate"] or 0), 1))
            for t, g in reviews["by_topic"].items()
            if g["overturn_rate"] is not None
        ]
        if bars:
            out.append("<h3>Overturn rate per topic (resolved as approved)</h3>")
            out.append(hbars("Overturn rate per topic", bars, unit=" %", colour="#b5564b"))
    rows = [
        [escape(r["topic"]), escape(r["queue"]), str(r["resolved"]), _pct(r["overturn_rate"]),
         _num(r["hours_to_resolution"]["p50"]), _num(r["hours_to_resolution"]["p90"])]
        for r in in_log["by_topic_and_queue"]
    ]  # fmt: skip
    out.append(
        f"<p>{in_log['escalated_turns']} escalated turns, {in_log['resolution_records']} "
        f"resolution records in the log ({in_log['without_their_turn']} for turns outside "
        "the window).</p>"
    )
    out.append(_table(["topic", "queue", "resolved", "overturned", "hours p50", "hours p90"], rows))
    return "".join(out)


def render_html(report: Mapping[str, Any]) -> str:
    """The report page for the mapping :func:`~guardrail.report.build.build_report` returns."""
    audit = report["audit"]
    src = report["source"]
    head = [
        f"<h1>Guard report: {escape(src['audit'])}</h1>",
        f"<p class='meta'>Records from {_num(audit['first'])} to {_num(audit['last'])} UTC"
        f" · window {_num(src['since'])} – {_num(src['until'])} · "
        f"{sum(audit['records'].values())} records ({', '.join(f'{n} {k}' for k, n in audit['records'].items())})"  # noqa: E501
        f" · generated {escape(report['generated_at'])}</p>",
    ]
    chain = report.get("chain")
    if chain is None:
        head.append(
            "<p class='warn'>Hash chain not verified in this report: run "
            "<code>guardrail audit verify</code> or pass <code>--verify</code>.</p>"
        )
    elif not chain["ok"]:
        head.append(f"<p class='bad'>Hash chain does NOT verify: {escape(chain['detail'])}</p>")
    else:
        head.append(f"<p>Hash chain verified: {escape(chain['detail'])}</p>")
    if audit["unreadable_lines"]:
        head.append(
            f"<p class='bad'>{audit['unreadable_lines']} line(s) of the log could not be read "
            "as audit records and are not counted in any figure below.</p>"
        )
    langs = audit["languages"]
    lang_html = (
        hbars("Turns per language", [(k, float(n)) for k, n in langs.items()])
        if langs
        else "<p class='muted'>This log records no language for its turns.</p>"
    )
    events = audit["events"]
    events_html = (
        _table(["event", "records"], [[escape(k), str(n)] for k, n in events.items()])
        if events
        else "<p class='muted'>No event records in this window.</p>"
    )
    redaction = ", ".join(f"{k} {n}" for k, n in audit["text_redaction"].items()) or "—"
    body = "".join(
        [
            *head,
            "<h2>Decisions per topic over time</h2>",
            _decisions(audit),
            "<h2>Scores against each topic's threshold</h2>",
            _scores(audit),
            "<h2>Most flagged factoids and spans</h2>",
            f"<p class='muted'>Texts as the log holds them (turns by text redaction: "
            f"{escape(redaction)}).</p>",
            _top("Flagged factoids", audit["top_flagged_factoids"], "no flagged factoid"),
            _top("Flagged spans", audit["top_flagged_spans"], "no flagged span"),
            "<h2>Judges</h2>",
            _judges(audit["judge"]),
            "<h2>Languages</h2>",
            lang_html,
            "<h2>Review queue</h2>",
            _reviews(report.get("reviews"), audit["resolutions_in_log"]),
            "<h2>Operational events</h2>",
            events_html,
        ]
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Guard report: {escape(src['audit'])}</title><style>{_CSS}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )
