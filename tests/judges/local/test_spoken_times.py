"""Times of day as people say them in English.

* "twenty past two", "ten to six", "25 minutes past 4" are times, and so is the British "half
  five" (5:30); "two to three days" and "five to ten tablets" stay ranges of a count.
* A time said without a.m., p.m. or a part of the day ("half past two", "at 2:30") may be in
  either half of the day: it agrees with "14:30". A time written on the 24-hour clock with a
  leading zero ("08:00") does not agree with "20:00", and "in the morning" keeps a time before
  noon.

Before, "half past two" was read as 2:30 a.m. and contradicted "14:30", and "twenty past two"
was read as the number twenty."""

from __future__ import annotations

import pytest

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import EITHER_HALF, extract
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading
from tests.verifying import verified


def clock_values(text: str) -> list[tuple[float | None, bool]]:
    with reading("en"):
        found = extract(text)
    return [
        (v.amount, v.text == EITHER_HALF) for v in found if v.kind == "time" and v.key == "clock"
    ]


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("Come at twenty past two.", 140.0),
        ("Come at ten to six.", 350.0),
        ("Come at 25 minutes past 4.", 265.0),
        ("The shop shuts at half five.", 330.0),
        ("Come at five past nine in the evening.", 1265.0),
    ],
)
def test_a_time_said_in_minutes(text: str, minutes: float) -> None:
    assert [m for m, _ in clock_values(text)] == [minutes]


@pytest.mark.parametrize(
    "text",
    ["It took two to three days.", "Take five to ten tablets.", "Wait half an hour."],
)
def test_a_range_or_a_length_is_no_time(text: str) -> None:
    assert clock_values(text) == []


#: (context, statement agreeing, statement disagreeing)
EITHER_HALF_CASES = [
    (
        "The vaccination clinic opens at 14:30 on Thursdays.",
        "The vaccination clinic opens at half past two on Thursdays.",
        "The vaccination clinic opens at half past three on Thursdays.",
    ),
    (
        "The vaccination clinic opens at 14:30 on Thursdays.",
        "The vaccination clinic opens at 2:30 on Thursdays.",
        "The vaccination clinic opens at 3:30 on Thursdays.",
    ),
    (
        "The last ferry leaves at 17:40.",
        "The last ferry leaves at twenty to six.",
        "The last ferry leaves at twenty to seven.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), EITHER_HALF_CASES)
def test_a_time_without_am_or_pm(context: str, agrees: str, disagrees: str) -> None:
    kept, caught = verified("en", [agrees, disagrees], context)
    assert kept is Support.SUPPORTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


@pytest.mark.parametrize(
    ("context", "statement"),
    [
        ("The canteen opens at 08:00.", "The canteen opens at 20:00."),
        ("The canteen opens at 14:30.", "The canteen opens at half past two in the morning."),
    ],
)
def test_the_24_hour_clock_and_the_morning_keep_their_half(context: str, statement: str) -> None:
    assert verified("en", [statement], context)[0] is Support.CONTRADICTED


def test_quid_and_a_pair() -> None:
    context = "Bring two passport photos. A replacement card sent by courier costs £15."
    kept = verified(
        "en",
        ["You bring a pair of passport photos.", "A replacement card by courier is fifteen quid."],
        context,
    )
    assert kept == [Support.SUPPORTED, Support.SUPPORTED]
    assert Lexicon.load().number_value("pair") == 2
