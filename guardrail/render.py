"""Human-readable rendering of reports: terminal (rich) and plain-text span markers.

Kept apart from the CLI so the demo and the CLI share it. Flagged spans are cut by
:func:`guardrail.actions.highlight.marked_pieces`, the same function behind the guard's
``highlight`` action, so the terminal and the highlighted answer mark the same characters.
"""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from guardrail.actions.highlight import marked_pieces
from guardrail.models import GuardResult, Label, ScoreReport, TopicLabel

_LABEL_STYLE = {Label.YES: "green", Label.NO: "red", Label.NOT_SURE: "yellow"}


def print_table(table: Table, console: Console | None = None) -> None:
    """Print ``table`` without cutting a cell: columns marked ``no_wrap`` (ids, figures) keep
    every character, other columns wrap, and when even that does not fit the terminal the
    table is printed wider than it (the terminal then wraps the lines) rather than shortened
    with "…". For every table the CLI prints (review, eval, probe)."""
    console = console or Console()
    unbounded = console.options.update_width(1_000_000)  # measure beyond the terminal
    for column in table.columns:
        if column.no_wrap:  # rich would still squeeze it: pin its width to its widest cell
            cells = [column.header, *column.cells]
            widest = max(Measurement.get(console, unbounded, c).maximum for c in cells)
            column.min_width = max(column.min_width or 0, widest)
    needed = Measurement.get(console, unbounded, table).minimum
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
        table = Table(show_lines=False, expand=False)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("factoid")
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("verdicts (synonyms | antonyms)")
        for f in report.factoids:
            cells = Text()
            for relation in ("synonym", "antonym"):
                if relation == "antonym":
                    cells.append(" | ")
                for i, v in enumerate(x for x in f.variants if x.relation.value == relation):
                    cells.append((" " if i else "") + v.label.value, _LABEL_STYLE[v.label])
            name = f.text if f.aligned else f"{f.text} (not located in the answer)"
            table.add_row(
                str(f.index + 1), name, Text(f"{f.score:.2f}", score_style(f.score)), cells
            )
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
