"""A custom action: tell the reader which statements the sources do not back.

Once this module is imported, a topic can turn it on::

    on_flag: {highlight: true, custom: [source-note]}

Run it::

    python examples/extending/source_note.py
"""

from __future__ import annotations

from guardrail.actions import Turn, register_action


def source_note(turn: Turn) -> str | None:
    """The answer followed by the flagged statements; ``None`` (unchanged) without a report."""
    if turn.report is None or not turn.report.flagged_spans:
        return None
    shown = "; ".join(f'"{text}"' for text in turn.report.flagged_text(turn.answer))
    return f"{turn.final}\n\nNot found in the sources: {shown}"


register_action("source-note", source_note)


if __name__ == "__main__":
    from guardrail import Guard
    from guardrail.policy import parse_policy

    policy = parse_policy(
        "name: demo\nscorer: {judge: test}\n"
        "topics: [{name: general, threshold: 0.5, on_flag: {custom: [source-note]}}]\n"
    )
    with Guard(policy) as guard:
        result = guard.check(
            "When is the library open?",
            "The library is open on Saturdays. It also opens on Sundays.",
            ["The city library is open on Saturdays from 10:00 to 14:00."],
        )
    print(f"actions: {', '.join(result.decision.actions)}")
    print(result.answer)
