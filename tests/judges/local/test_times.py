"""Clock times and dates read in every common format, and bare numbers never read as times."""

from __future__ import annotations

import pytest

from guardrail.judges.local.times import calendar_dates, clock_minutes, same_date


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("9am", {540}),
        ("9 a.m.", {540}),
        ("09:00", {540, 1260}),
        ("9.00", {540, 1260}),
        ("nine o'clock", {540, 1260}),
        ("half past eight", {510, 1230}),
        ("quarter to ten", {585, 1305}),
        ("half twelve", {30, 750}),
        ("5.30pm", {1050}),
        ("noon", {720}),
        ("midday", {720}),
        ("midnight", {0}),
        ("between 9 and 11 in the morning", {540, 660}),
        ("from 10 till 4", {600, 1320, 240, 960}),
    ],
)
def test_a_time_in_any_format_gives_its_minutes_after_midnight(
    text: str, minutes: set[int]
) -> None:
    assert minutes <= clock_minutes(text)


@pytest.mark.parametrize(
    "text", ["14 days", "2.75%", "from 12 to 18 months", "take 2 tablets", "£10.50", "one or two"]
)
def test_a_bare_number_or_a_measure_is_not_a_time(text: str) -> None:
    assert clock_minutes(text) == set()


def test_a_time_without_am_or_pm_matches_either_reading() -> None:
    assert clock_minutes("half past three") & clock_minutes("3.30pm")
    assert not clock_minutes("half past three") & clock_minutes("4pm")


def test_dates_keep_their_day_month_and_year() -> None:
    found = calendar_dates("valid from 12 June 2025 until 11 June 2027")
    assert found == {(12, 6, 2025), (11, 6, 2027)}
    assert calendar_dates("June 3, 2024") == {(3, 6, 2024)}
    assert same_date((3, 5, None), (3, 5, 2026))
    assert not same_date((3, 5, 2025), (3, 5, 2026))
    assert calendar_dates("14 days") == set()


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("by 15th July", (15, 7, None)),
        ("the fifteenth of July", (15, 7, None)),
        ("July the 21st", (21, 7, None)),
        ("the twenty-first of March 2025", (21, 3, 2025)),
        ("on the 2nd of march", (2, 3, None)),
    ],
)
def test_a_day_with_an_ordinal_suffix_or_word_is_a_date(
    text: str, date: tuple[int, int, int | None]
) -> None:
    assert calendar_dates(text) == {date}


@pytest.mark.parametrize("text", ["You may first call the helpline.", "you may second it"])
def test_the_modal_may_before_an_ordinal_word_is_not_a_date(text: str) -> None:
    assert calendar_dates(text) == set()


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("by the end of June 2021", {(30, 6, 2021)}),
        ("the last day of April", {(30, 4, None)}),
        ("before the end of February 2024", {(29, 2, 2024)}),
        ("before the end of February 2023", {(28, 2, 2023)}),
        ("at the end of the month", set()),
    ],
)
def test_the_end_of_a_month_is_its_last_day(
    text: str, dates: set[tuple[int, int, int | None]]
) -> None:
    assert calendar_dates(text) == dates


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("file by 31/1/2027", {(31, 1, 2027)}),
        ("from 30/04 onwards", {(30, 4, None)}),
        ("valid until 14.10.2026.", {(14, 10, 2026)}),
        ("due 2027-01-31", {(31, 1, 2027)}),
        ("take 3/4 of a tablet", set()),
        ("opens at 9.30", set()),
        ("the 2025-26 tax year", set()),
    ],
)
def test_a_date_in_figures_is_read_day_first(
    text: str, dates: set[tuple[int, int, int | None]]
) -> None:
    """Dates in figures are read day first, as the value checks read them; a fraction, a
    clock time and a span of years are no dates."""
    assert calendar_dates(text) == dates
