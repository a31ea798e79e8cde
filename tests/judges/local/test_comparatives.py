"""Comparisons read by the conflict check: the same two things on one scale, in either order."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.comparatives import Comparisons
from guardrail.judges.local.lexicon import Lexicon

_COMPARE = Comparisons(Lexicon.load())


@pytest.mark.parametrize(
    ("statement", "context", "agree"),
    [
        # multi-word comparatives against one-word ones
        (
            "The phone is more expensive than the tablet.",
            "The phone is cheaper than the tablet.",
            False,
        ),
        ("The bus is less expensive than the ferry.", "The bus is cheaper than the ferry.", True),
        (
            "The bus is more costly than the ferry.",
            "The bus is more expensive than the ferry.",
            True,
        ),
        # swapped sides: the opposite comparative says the same, the same one reverses it
        (
            "The old model is heavier than the new one.",
            "The new model is lighter than the old one.",
            True,
        ),
        (
            "The south tower is taller than the north tower.",
            "The north tower is taller than the south tower.",
            False,
        ),
        (
            "Rice grows faster in spring than in autumn.",
            "Rice grows faster in autumn than in spring.",
            False,
        ),
        # negation composes
        (
            "The old model is not heavier than the new one.",
            "The new model is lighter than the old one.",
            False,
        ),
        (
            "It is not true that the phone is cheaper than the tablet.",
            "The phone is more expensive than the tablet.",
            True,
        ),
        # without "than": comparatives of the lexicon's pairs, the rest must match
        (
            "Tickets are more expensive when booked online.",
            "Tickets are cheaper when booked online.",
            False,
        ),
    ],
)
def test_comparisons_agree_or_reverse(statement, context, agree):
    assert _COMPARE.agree(statement, context) is agree


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        (
            "The phone is heavier than the tablet.",
            "The phone is cheaper than the tablet.",
        ),  # two scales
        (
            "The phone is cheaper than the tablet.",
            "The laptop is cheaper than the desktop.",
        ),  # other things
        ("It has a higher number of users than before.", "It has more users than before."),
        ("The phone is cheaper.", "The phone was bought in May."),
    ],
)
def test_other_pairs_are_left_to_the_verifier(statement, context):
    assert _COMPARE.agree(statement, context) is None


@pytest.mark.parametrize("verifier", ["rules", "trained"])
def test_the_verdict_names_the_reversed_comparison(verifier):
    reply = LocalJudge(verifier=verifier).answer(
        "verify",
        {
            "statement": "The south tower is taller than the north tower.",
            "context": "The north tower is taller than the south tower.",
        },
    )
    assert reply.startswith("NO. The context compares them the other way"), reply
