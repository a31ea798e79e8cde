"""Clock times and calendar dates in running text, normalised for comparison.

A time is read as minutes after midnight. "9am", "9 a.m.", "09:00", "9.00", "nine o'clock",
"half past eight", "quarter to ten", "half twelve" (British: 12:30), "noon", "midday",
"midnight", and a bare hour followed by "in the morning" / "in the afternoon" / "in the
evening" / "at night" are times. A time written without a.m. or p.m. may be either: it
gives both readings, so "half three" matches "3.30pm". A bare number is never a time
("14 days" is not).

A date is (day, month, year or None): "12 June 2027", "June 12, 2027", "the 25th of
December", "3 March", "the end of June" (its last day).
"""

from __future__ import annotations

import re

__all__ = ["calendar_dates", "clock_minutes", "hour_readings", "hour_value", "last_day"]

_NUMBER_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_HOUR = r"(\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_MERIDIEM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_PART = r"(?:in\s+the\s+(morning|afternoon|evening)|at\s+night|tonight)"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"(?<![£$€\d.,])\b(\d{{1,2}})[:.](\d{{2}})\s*{_MERIDIEM}?(?![\d%])", re.I), "hm"),
    (re.compile(rf"\b{_HOUR}\s*{_MERIDIEM}(?![a-z])", re.I), "h_mer"),
    (re.compile(rf"\b{_HOUR}\s+o['’]?\s?clock\b", re.I), "h"),
    (re.compile(rf"\bhalf\s+past\s+{_HOUR}\b", re.I), "half_past"),
    (re.compile(rf"\bquarter\s+past\s+{_HOUR}\b", re.I), "quarter_past"),
    (re.compile(rf"\bquarter\s+to\s+{_HOUR}\b", re.I), "quarter_to"),
    (re.compile(rf"\bhalf\s+{_HOUR}\b(?!\s+(?:hours?|days?|an?\b))", re.I), "half_past"),
    (re.compile(r"\b(?:half|quarter)\s+(?:past|to)\s+(?:midnight|noon|midday)\b", re.I), "near"),
    (
        re.compile(
            r"\b(noon|midday)\b(?<!past noon)(?<!past midday)(?<!to noon)(?<!to midday)", re.I
        ),
        "noon",
    ),
    (re.compile(r"\bmidnight\b(?<!past midnight)(?<!to midnight)", re.I), "midnight"),
]
#: "from 10 till 4": a bare range of hours, when no unit follows it.
_RANGE = re.compile(
    rf"\b(?:from|between)\s+{_HOUR}\s*(?:till|until|to|and|-|–)\s*{_HOUR}\b(?![.:]\d)"
    r"(?!\s*(?:%|[a-z]+s\b|a\.?m|p\.?m|o'clock|year|month|week|day|hour|minute|mg|kg|ml|km))",
    re.I,
)
_PART_OF_DAY = re.compile(rf"\b{_HOUR}(?:\s*(?:and|to|-|–|until|till)\s*{_HOUR})?\s+{_PART}", re.I)


def hour_value(text: str) -> int | None:
    """The hour a digit or a number word up to twelve gives (0 to 24), else None."""
    low = text.lower()
    value = _NUMBER_WORDS.get(low)
    if value is None and low.isdigit():
        value = int(low)
    return value if value is not None and 0 <= value <= 24 else None


def hour_readings(hour: int, minute: int, meridiem: str | None) -> set[int]:
    """Minutes after midnight of ``hour``:``minute``: both readings of an hour up to 12 when
    no a.m. or p.m. says which."""
    if meridiem is not None:
        pm = meridiem.lower().startswith("p")
        hour = hour % 12 + (12 if pm else 0)
        return {hour * 60 + minute}
    if hour == 0 or hour > 12:
        return {(hour % 24) * 60 + minute}
    return {(hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute}


def clock_minutes(text: str) -> set[int]:
    """Every reading, in minutes after midnight, of the clock times ``text`` gives."""
    out: set[int] = set()
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(text):
            out |= _read(m, kind)
    for m in _RANGE.finditer(text):
        for group in (1, 2):
            hour = hour_value(m.group(group))
            if hour is not None and 1 <= hour <= 12:
                out |= hour_readings(hour, 0, None)
    for m in _PART_OF_DAY.finditer(text):
        part = (m.group(3) or "").lower()
        meridiem = "am" if part == "morning" else "pm"
        for group in (1, 2):
            hour = hour_value(m.group(group)) if m.group(group) else None
            if hour is not None and 1 <= hour <= 12:
                out |= hour_readings(hour, 0, meridiem)
    return out


def _read(m: re.Match[str], kind: str) -> set[int]:
    if kind == "noon":
        return {12 * 60}
    if kind == "midnight":
        return {0}
    if kind == "near":  # "half past midnight" (00:30), "quarter to noon" (11:45)
        words = m.group().lower().split()
        base = 0 if words[-1] == "midnight" else 12 * 60
        step = 30 if words[0] == "half" else 15
        return {(base + (step if words[1] == "past" else -step)) % (24 * 60)}
    hour = hour_value(m.group(1))
    if hour is None:
        return set()
    if kind == "hm":
        minute = int(m.group(2))
        if minute >= 60:
            return set()
        return hour_readings(hour, minute, m.group(3))
    if kind == "h_mer":
        return hour_readings(hour, 0, m.group(2)) if 1 <= hour <= 12 else set()
    if kind == "h":
        return hour_readings(hour, 0, None)
    minute = {"half_past": 30, "quarter_past": 15, "quarter_to": -15}[kind]
    if minute < 0:
        return {r - 60 + 45 for r in hour_readings(hour, 0, None)}
    return hour_readings(hour, minute, None)


_MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
_TEENS = (
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
    "nineteenth"
).split()
#: Ordinal words for the days of a month ("the fifteenth of July", "twenty-first").
ORDINAL_DAYS: dict[str, int] = {
    **{w: n for n, w in enumerate(_UNITS, start=1)},
    **{w: n for n, w in enumerate(_TEENS, start=10)},
    "twentieth": 20,
    "thirtieth": 30,
    **{f"twenty{sep}{w}": 20 + n for n, w in enumerate(_UNITS, start=1) for sep in ("-", " ")},
    **{f"thirty{sep}first": 31 for sep in ("-", " ")},
}
_ORDINAL = "|".join(sorted((re.escape(w) for w in ORDINAL_DAYS), key=len, reverse=True))
_DIGIT_DAY = r"(\d{1,2}(?:st|nd|rd|th)?)"
_DAY = rf"(\d{{1,2}}(?:st|nd|rd|th)?|{_ORDINAL})"
_YEAR = r"(?:,?\s+(\d{4}))?"
_DAY_MONTH = re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\b{_YEAR}", re.I)
# digits only after the month: "may first" is far more often the modal than the 1st of May
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(?:the\s+)?{_DIGIT_DAY}\b{_YEAR}", re.I)

#: A date in figures, day first as the value checks read it: "31/1/2027", "30/04",
#: "14.10.2026"; "2027-01-31" year first.
_NUMERIC_DATE = re.compile(r"(?<![\d/.])(\d{1,2})([/.])(\d{1,2})(?:\2(\d{4}))?(?![\d/]|\.\d)")
_ISO_DATE = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
#: "the end of June 2021", "the last day of April": the month's last day.
_MONTH_END = re.compile(rf"\b(?:end|last\s+day)\s+of\s+{_MONTH}(?:\s+(\d{{4}}))?\b", re.I)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

Date = tuple[int, int, int | None]


def calendar_dates(text: str) -> set[Date]:
    """The (day, month, year or None) dates ``text`` gives."""
    out: set[Date] = set()
    for m in _DAY_MONTH.finditer(text):
        day, month = _day(m.group(1)), _MONTHS[m.group(2).lower()]
        if 1 <= day <= 31:
            out.add((day, month, int(m.group(3)) if m.group(3) else None))
    for m in _MONTH_DAY.finditer(text):
        month, day = _MONTHS[m.group(1).lower()], _day(m.group(2))
        if 1 <= day <= 31:
            out.add((day, month, int(m.group(3)) if m.group(3) else None))
    for m in _NUMERIC_DATE.finditer(text):
        day, sep, month, year = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        if year is None and (sep == "." or len(m.group(1)) + len(m.group(3)) < 3):
            continue  # "9.30" is a time, "3/4" a fraction
        if 1 <= day <= 31 and 1 <= month <= 12:
            out.add((day, month, int(year) if year else None))
    for m in _ISO_DATE.finditer(text):
        day, month = int(m.group(3)), int(m.group(2))
        if 1 <= day <= 31 and 1 <= month <= 12:
            out.add((day, month, int(m.group(1))))
    for m in _MONTH_END.finditer(text):
        month, year = _MONTHS[m.group(1).lower()], int(m.group(2)) if m.group(2) else None
        last = last_day(month, year)
        if last is not None:
            out.add((last, month, year))
    return out


def last_day(month: int, year: int | None) -> int | None:
    """The last day of ``month``; None for a February of no known year."""
    if month != 2:
        return _MONTH_DAYS[month - 1]
    if year is None:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if leap else 28


def _day(text: str) -> int:
    """The day a day-of-month token gives: "15", "15th" or "fifteenth"."""
    word = text.lower()
    if word in ORDINAL_DAYS:
        return ORDINAL_DAYS[word]
    return int(word.rstrip("stndrh"))


def same_date(a: Date, b: Date) -> bool:
    """The same day and month, and the same year when both give one."""
    return a[:2] == b[:2] and (a[2] is None or b[2] is None or a[2] == b[2])
