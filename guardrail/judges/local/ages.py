"""Ages in English: the asker's, from the question ("my 4 year old", "he's 10", "im an
adult"), and the age group a passage's sentence gives a value for ("Children 6-11 years: 10
drops", "£45 for children aged 6 to 11", "aged 75 and over", "adults").

A short reply read with its question takes its value from the sentence that answers the
question; when that sentence gives the value for one age group and the question says the asker
is outside it ("im an adult" + "Four tablets." against "Children 12-15: maximum 4 tablets"),
the value is another group's: the statement is contradicted (read by the offline verifier
with the turn's question, :func:`~guardrail.judges.local.replies.turn_question`), unless it
denies something or names the group itself ("It's 16 and over there"). Ages are read in
English only.
"""

from __future__ import annotations

import re

__all__ = ["asker_age", "group_ages", "names_group", "outside"]

#: The oldest age read.
OLDEST = 120
#: The first adult year.
ADULT = 18

_YEARS_OLD = re.compile(r"\b(\d{1,3})\s*-?\s*(?:years?|yrs?|y)\s*-?\s*olds?\b|\b(\d{1,3})\s*yo\b")
_I_AM = re.compile(
    r"\b(?:i'?m|i am|he'?s|hes|he is|she'?s|shes|she is|aged|age)\s+(\d{1,3})\b"
    r"(?!\s*(?:weeks?|wks?|months?|days?|hours?|%|kg|g\b|mg|pm|am|p\.m|a\.m|[.:,]\d|x\b))",
    re.IGNORECASE,
)
_ADULT = re.compile(r"\b(?:i'?m|im|i am|as)\s+(?:an?\s+)?adult\b", re.IGNORECASE)

_RANGE = re.compile(
    r"\b(?:children|child|kids|ages?|aged|young people)\s+(?:aged\s+|from\s+)?(\d{1,2})\s*"
    r"(?:-|–|to)\s*(\d{1,2})\b",
    re.IGNORECASE,
)
_AND_OVER = re.compile(
    r"\b(?:aged\s+)?(\d{1,3})\s*(?:\+|and over|or over|and above|or above|and older|or older)",
    re.IGNORECASE,
)
_UNDER = re.compile(
    r"\b(?:under|below|younger than)\s+(?:the age of\s+)?(\d{1,3})\b(?!\s*(?:weeks?|kg|%))",
    re.IGNORECASE,
)
_ADULTS = re.compile(r"\badults?\b", re.IGNORECASE)
_CHILDREN = re.compile(r"\b(?:children|child|kids|juniors?)\b", re.IGNORECASE)


def asker_age(question: str) -> tuple[int, int] | None:
    """The asker's (or the person asked about's) age as an interval, or ``None`` when the
    question says none or more than one."""
    found: set[tuple[int, int]] = set()
    for match in _YEARS_OLD.finditer(question):
        years = int(match.group(1) or match.group(2))
        found.add((years, years))
    for match in _I_AM.finditer(question):
        years = int(match.group(1))
        if years <= OLDEST:
            found.add((years, years))
    if _ADULT.search(question):
        found.add((ADULT, OLDEST))
    return found.pop() if len(found) == 1 else None


def group_ages(text: str) -> tuple[int, int] | None:
    """The one age group ``text`` (a passage's sentence or part) speaks of, as an interval, or
    ``None`` when it names none or more than one."""
    found: list[tuple[int, int]] = []
    for match in _RANGE.finditer(text):
        found.append((int(match.group(1)), int(match.group(2))))
    for match in _AND_OVER.finditer(text):
        found.append((int(match.group(1)), OLDEST))
    for match in _UNDER.finditer(text):
        found.append((0, int(match.group(1)) - 1))
    if _ADULTS.search(text):
        found.append((ADULT, OLDEST))  # "€90 for adults and €45 for children aged 6 to 11": two
    elif not found and _CHILDREN.search(text):
        found.append((0, ADULT - 1))
    return found[0] if len(found) == 1 else None


def outside(asker: tuple[int, int], text: str) -> tuple[int, int] | None:
    """The age group of ``text`` when the ``asker``'s age (:func:`asker_age`) lies outside
    it, else ``None``."""
    group = group_ages(text)
    if group is None:
        return None
    if asker[1] < group[0] or asker[0] > group[1]:
        return group
    return None


def names_group(statement: str, group: tuple[int, int]) -> bool:
    """Whether ``statement`` speaks of the age group itself (one of its bounds, or adults or
    children): then it restates the group's rule rather than applying it to the asker."""
    numbers = {int(n) for n in re.findall(r"\b\d{1,3}\b", statement)}
    bounds = {group[0], group[1]} - {0, OLDEST}
    if numbers & bounds or (group[0] == ADULT and group[1] == OLDEST and numbers & {ADULT}):
        return True
    return bool(_ADULTS.search(statement) or _CHILDREN.search(statement))
