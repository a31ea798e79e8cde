"""Human-readable rendering of reports: terminal (rich) and plain-text span markers.

Kept apart from the CLI so the demo and the CLI share it. Flagged spans are cut by
:func:`guardrail.actions.highlight.marked_pieces`, the same function behind the guard's
``highlight`` action, so the terminal and the highlighted answer mark the same characters.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from guardrail.actions.highlight import marked_pieces
from guardrail.models import Factoid, GuardResult, Label, ScoreReport, TopicLabel

_LABEL_STYLE = {Label.YES: "green", Label.NO: "red", Label.NOT_SURE: "yellow"}


#: The narrowest a column of labels or prose is folded to before the layout gives up.
FOLD_MIN = 10


def _fit_columns(table: Table, console: Console) -> list[int]:
    """Make every cell uncuttable, and return each column's least width.

    A column marked ``no_wrap`` (ids, figures) gets its longest word, header included, as its
    least width: its values never break, its header and any prose in it wrap between words.
    Every other column folds (labels, questions) instead of ending in "…", down to
    :data:`FOLD_MIN` characters or its longest word if shorter.
    """
    unbounded = console.options.update_width(1_000_000)
    least = []
    for column in table.columns:
        cells = [column.header, *column.cells]
        longest = max(Measurement.get(console, unbounded, c).minimum for c in cells)
        column.overflow = "fold"
        if column.no_wrap:
            column.min_width = max(column.min_width or 0, longest)
            least.append(column.min_width)
        else:
            least.append(min(longest, FOLD_MIN))
    return least


def _squeeze(table: Table) -> None:
    """Fix the ``no_wrap`` columns at their least width, so that only labels and prose give
    way when rich narrows the table (it would otherwise narrow every column alike)."""
    for column in table.columns:
        if column.no_wrap:
            column.no_wrap = False
            column.width = column.min_width


def _compact(table: Table) -> None:
    """Rules under the header only, one space between columns: ~3 columns' worth saved."""
    table.box = box.SIMPLE_HEAD
    table.show_edge = False
    table.padding = (0, 0)
    table.collapse_padding = True


def _width(table: Table, least: list[int]) -> int:
    """The table's width with each column at its least: cells, padding, rules and edges
    (rich's own reckoning, which its private helpers expose)."""
    padding = sum(table._get_padding_width(i) for i in range(len(table.columns)))
    return sum(least) + padding + table._extra_width


def print_table(table: Table, console: Console | None = None) -> None:
    """Print ``table`` without cutting a cell (for every table the CLI prints).

    Ids and figures (columns marked ``no_wrap``) keep every character; labels and prose wrap
    or fold, never end in "…". When the boxed table cannot fit the terminal it is printed
    compact (:func:`_compact`); when even that cannot, wider than the terminal (which then
    wraps the lines) rather than shortened.
    """
    console = console or Console()
    least = _fit_columns(table, console)
    unbounded = console.options.update_width(1_000_000)

    # Boxed as it is; boxed with the ids and figures at their least and prose wrapped between
    # words; compact, the same two ways; then compact with labels folded inside words: the
    # first layout that fits is printed.
    for step in (None, _squeeze, _compact):
        if step is not None:
            step(table)
        measured = Measurement.get(console, unbounded, table)
        if (measured.maximum if step is None else measured.minimum) <= console.width:
            console.print(table)
            return
    needed = _width(table, least)
    if needed <= console.width:
        console.print(table)
        return
    size = console.size
    console.size = (needed, size.height)  # width alone would lose to $COLUMNS
    try:
        console.print(table)
    finally:
        console.size = size


def topic_text(topic: TopicLabel) -> str:
    """One topic for people: ``asylum 1.00 (keyword in passage)``, ``general 0.89
    (classifier)``: the source, and for a passage the text that detected it."""
    where = " in passage" if topic.found_in == "context" else ""
    if topic.source == "keyword" and topic.found_in == "question":
        where = " in question"
    return f"{topic.label} {topic.confidence:.2f} ({topic.source}{where})"


def score_style(score: float) -> str:
    if score >= 0.7:
        return "bold red"
    if score >= 0.3:
        return "bold yellow"
    return "green"


def highlighted_text(answer: str, report: ScoreReport | None) -> Text:
    """The answer with flagged spans in ``[[ ]]`` (readable without colour), each coloured by
    the highest score of the flagged factoids it overlaps; no report, no marks."""
    if report is None:
        return Text(answer)
    by_span = {span: f.score for f in report.factoids if f.flagged for span in f.spans}
    text = Text()
    for (start, end), marked in marked_pieces(answer, report.flagged_spans):
        if not marked:
            text.append(answer[start:end])
            continue
        score = max((v for (s, e), v in by_span.items() if s < end and start < e), default=1.0)
        text.append(f"[[{answer[start:end]}]]", style=f"{score_style(score)} underline")
    return text


def _verdicts(factoid: Factoid) -> Text:
    """``YES YES | NO NO``: the synonyms' verdicts, then the antonyms'."""
    cells = Text()
    for relation in ("synonym", "antonym"):
        if relation == "antonym":
            cells.append(" | ")
        for i, v in enumerate(x for x in factoid.variants if x.relation.value == relation):
            cells.append((" " if i else "") + v.label.value, _LABEL_STYLE[v.label])
    return cells


def print_report(report: ScoreReport, answer: str, console: Console | None = None) -> None:
    """Print the response score, factoids with verdicts, and the highlighted answer."""
    console = console or Console()
    verdict = "FLAGGED" if report.flagged else "ok"
    console.print(
        Text.assemble(
            ("Response score ", "bold"),
            (f"{report.score:.2f}", score_style(report.score)),
            f"  (threshold {report.threshold:.2f}, flagged when score >= threshold) ",
            (verdict, "bold red" if report.flagged else "bold green"),
        )
    )
    if report.status != "ok":
        console.print(f"status: {report.status}")
    if report.factoids:
        # A scorer that verifies claims without synonym and antonym variants (RT4CHART, a
        # plug-in) has no verdicts to show: no column for them rather than an empty one.
        variants = any(f.variants for f in report.factoids)
        table = Table(show_lines=False, expand=False)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("factoid")
        table.add_column("score", justify="right", no_wrap=True)
        if variants:
            table.add_column("verdicts (synonyms | antonyms)")
        for f in report.factoids:
            name = f.text if f.aligned else f"{f.text} (not located in the answer)"
            score = Text(f"{f.score:.2f}", score_style(f.score))
            verdicts = [_verdicts(f)] if variants else []
            table.add_row(str(f.index + 1), name, score, *verdicts)
        print_table(table, console)
        for f in report.factoids:
            for note in f.conflicts():
                console.print(Text.assemble((f"#{f.index + 1} conflict: ", "bold red"), note))
    console.print(Text("Answer (flagged spans in [[ ]]):", style="bold"))
    console.print(highlighted_text(answer, report))
    u = report.usage
    console.print(
        f"[dim]{u.judge_calls} judge calls, {u.prompt_tokens}+{u.completion_tokens} tokens, "
        f"{u.parse_failures} parse failures"
        f"{f' ({u.unusable_replies} replies unusable)' if u.parse_failures else ''}, "
        f"{u.wall_seconds:.2f}s[/dim]"
    )


def print_decision(result: GuardResult, console: Console | None = None) -> None:
    """Print the topics, the policy decision and what the user would see."""
    console = console or Console()
    topics = ", ".join(topic_text(t) for t in result.topics)
    d = result.decision
    console.print(Text.assemble(("Topics ", "bold"), topics))
    console.print(
        Text.assemble(
            ("Decision ", "bold"),
            (" + ".join(d.actions) or "pass", "bold red" if d.flagged else "bold green"),
            f" (topic {d.topic}, threshold {d.threshold:.2f}"
            + (f", queue {d.queue}" if d.queue else "")
            + ")",
        )
    )
    console.print(f"[dim]{d.reason}[/dim]")
    if d.error:
        console.print(Text(f"error: {d.error}", style="red"))
    console.print(Text.assemble(("User sees ", "bold"), result.answer))
    console.print(f"[dim]audit id {result.audit_id}[/dim]")
