"""Three chart kinds as inline SVG strings: stacked bars, a histogram with a threshold line,
and labelled horizontal bars.

Hand-made on purpose. The report needs three plain chart kinds that must render with no
script and no font or file fetched (the page is one self-contained file an auditor can
archive). Plotting libraries that emit SVG bring more than they add here: matplotlib is tens
of megabytes and embeds glyph paths (large, unselectable text); pygal and Plotly rely on
JavaScript for tooltips and layout; Altair/Vega render in the browser. About 150 lines of
SVG give crisp vector output, real text that screen readers and search can read, a
``<title>`` tooltip on every bar, and colours that also hold in print.

Every chart is an ``<svg class="chart" role="img">`` with a ``<title>``; text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

__all__ = ["ACTION_COLOURS", "hbars", "histogram", "stacked_bars"]

#: One colour per action, weakest (green) to strongest (red), colour-blind distinguishable.
ACTION_COLOURS: dict[str, str] = {
    "pass": "#4c9a6a",
    "highlight": "#c9b03c",
    "cite": "#4a86c5",
    "custom": "#8c6bb1",
    "regenerate": "#e08a2c",
    "abstain": "#b5564b",
    "escalate": "#7a1f3d",
}
_GRID = "#d9dde3"
_TEXT = "#333"


def _open(width: int, height: int, title: str) -> str:
    return (
        f'<svg class="chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-label="{escape(title)}" font-family="system-ui, sans-serif" font-size="11">'
        f"<title>{escape(title)}</title>"
    )


def _nice_max(value: float) -> float:
    """A round axis maximum at or above ``value``."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 4, 6, 8, 10):
        top = step * magnitude
        if top >= value:
            return float(top)
    return float(10 * magnitude)


def _y_axis(parts: list[str], left: int, top: int, plot_h: int, width: int, ymax: float) -> None:
    for i in range(5):
        v = ymax * i / 4
        y = top + plot_h - plot_h * i / 4
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 8}" y2="{y:.1f}" stroke="{_GRID}"/>'
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="{_TEXT}">'
            f"{v:g}</text>"
        )


def stacked_bars(
    title: str,
    columns: Sequence[str],
    series: Mapping[str, Sequence[int]],
    colours: Mapping[str, str] = ACTION_COLOURS,
    *,
    width: int = 480,
    height: int = 200,
) -> str:
    """One bar per column, stacked by series (e.g. days x actions); a legend below."""
    left, top, bottom = 44, 10, 56
    plot_w, plot_h = width - left - 8, height - top - bottom
    totals = [sum(s[i] for s in series.values()) for i in range(len(columns))]
    ymax = _nice_max(max(totals, default=0))
    parts = [_open(width, height, title)]
    _y_axis(parts, left, top, plot_h, width, ymax)
    slot = plot_w / max(len(columns), 1)
    bar = max(1.0, slot * 0.8)
    label_every = max(1, len(columns) // 8)
    for i, col in enumerate(columns):
        x = left + i * slot + (slot - bar) / 2
        y: float = top + plot_h
        for name, values in series.items():
            n = values[i]
            if not n:
                continue
            h = plot_h * n / ymax
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{colours.get(name, "#888")}"><title>{escape(col)} · {escape(name)}: '
                f"{n}</title></rect>"
            )
        if i % label_every == 0:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{top + plot_h + 14}" text-anchor="middle" '
                f'fill="{_TEXT}">{escape(col[5:])}</text>'
            )
    x = left
    for name in series:
        parts.append(
            f'<rect x="{x}" y="{height - 18}" width="10" height="10" '
            f'fill="{colours.get(name, "#888")}"/><text x="{x + 14}" y="{height - 9}" '
            f'fill="{_TEXT}">{escape(name)}</text>'
        )
        x += 18 + 7 * len(name)
    parts.append("</svg>")
    return "".join(parts)


def histogram(
    title: str,
    bins: Sequence[int],
    threshold: float | None,
    *,
    width: int = 320,
    height: int = 170,
) -> str:
    """Counts over [0, 1] in equal bins; bars at or above ``threshold`` in red, the threshold
    as a dashed line labelled with its value."""
    left, top, bottom = 40, 18, 30
    plot_w, plot_h = width - left - 8, height - top - bottom
    ymax = _nice_max(max(bins, default=0))
    parts = [_open(width, height, title)]
    _y_axis(parts, left, top, plot_h, width, ymax)
    w = plot_w / max(len(bins), 1)
    for i, n in enumerate(bins):
        if not n:
            continue
        lo = i / len(bins)
        above = threshold is not None and lo >= threshold - 1e-9
        h = plot_h * n / ymax
        parts.append(
            f'<rect x="{left + i * w:.1f}" y="{top + plot_h - h:.1f}" width="{max(w - 1, 1):.1f}" '
            f'height="{h:.1f}" fill="{"#c0504d" if above else "#6a8fb5"}">'
            f"<title>score {lo:.2f}–{lo + 1 / len(bins):.2f}: {n}</title></rect>"
        )
    for v in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<text x="{left + plot_w * v:.1f}" y="{height - 14}" text-anchor="middle" '
            f'fill="{_TEXT}">{v:g}</text>'
        )
    if threshold is not None:
        x = left + plot_w * threshold
        parts.append(
            f'<line class="threshold" x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" '
            f'y2="{top + plot_h}" stroke="#7a1f3d" stroke-width="2" stroke-dasharray="4 3"/>'
            f'<text x="{x + 3:.1f}" y="{top - 8 + 9}" fill="#7a1f3d">threshold {threshold:g}'
            "</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def hbars(
    title: str,
    rows: Sequence[tuple[str, float]],
    *,
    unit: str = "",
    width: int = 640,
    colour: str = "#6a8fb5",
) -> str:
    """One labelled horizontal bar per row, the value at its end."""
    row_h, label_w = 20, 300
    height = max(1, len(rows)) * row_h + 8
    plot_w = width - label_w - 70
    vmax = max((v for _, v in rows), default=0) or 1
    parts = [_open(width, height, title)]
    for i, (label, value) in enumerate(rows):
        y = 4 + i * row_h
        shown = label if len(label) <= 48 else label[:47] + "…"
        w = plot_w * value / vmax
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end" fill="{_TEXT}">'
            f"<title>{escape(label)}</title>{escape(shown)}</text>"
            f'<rect x="{label_w}" y="{y + 2}" width="{max(w, 1):.1f}" height="{row_h - 6}" '
            f'fill="{colour}"><title>{escape(label)}: {value:g}{unit}</title></rect>'
            f'<text x="{label_w + w + 4:.1f}" y="{y + 13}" fill="{_TEXT}">{value:g}{unit}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
