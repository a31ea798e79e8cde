"""In English too, a value the passage gives in one part of a sentence is not the value of
another part's subject: "An adult pass costs £14; a child pass costs £7" against "An adult pass
costs £7". Every word of the statement is in the sentence, so before this the lexical match
supported it. English binds amounts, percentages, dates, times and weekdays this way, not
names (capitalized words in English web passages are too often no names)."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (passage, statement with the other part's value, statement with its own value)
SWAPS = [
    (
        "An adult swim pass costs £14; a child swim pass costs £7.",
        "An adult swim pass costs £7.",
        "A child swim pass costs £7.",
    ),
    (
        "An adult swim pass costs £14 and a child swim pass costs £7.",
        "A child swim pass costs £14.",
        "An adult swim pass costs £14.",
    ),
    (
        "The standard loan carries interest at 6%, while the green loan carries interest at 4%.",
        "The green loan carries interest at 6%.",
        "The green loan carries interest at 4%.",
    ),
    (
        "The walk-in clinic opens at 8am; the pharmacy counter opens at 10am.",
        "The pharmacy counter opens at 8am.",
        "The pharmacy counter opens at 10am.",
    ),
]


@pytest.mark.parametrize(("passage", "swapped", "kept"), SWAPS)
def test_a_value_of_another_part_is_contradicted(passage: str, swapped: str, kept: str) -> None:
    wrong, right = verified("en", [swapped, kept], passage)
    assert wrong is Support.CONTRADICTED, swapped
    assert right is not Support.CONTRADICTED, kept
