"""The question prompt (HalluVault Table 2) and reading a reply's verdict and knowledge.

The chatbot is asked for yes / no / I don't know, a step-by-step answer, then the knowledge it
used as numbered declarative sentences. :func:`parse_reply` reads the verdict from the start
of the reply (``refused`` for "I don't know" and its usual paraphrases, ``None`` when no
verdict can be found) and the knowledge points (numbered or bulleted lines after the verdict).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["yes", "no", "refused"]

PROMPT = (
    "Instruction: Answer the question with your knowledge and reasoning power.\n"
    "Query: Now given the question: {question}, please provide an answer with your knowledge "
    "and reasoning power. Answer yes, no or I don't know first.\n"
    "Think of it step by step with a human-like reasoning process.\n"
    "After giving the answer, list the knowledge used in your reasoning process in the form of "
    "declarative sentences and point by point.\n"
    "Here is an example. Question: During Barack Obama held the position as the president of "
    "the USA, were any films directed by James Cameron released?\n"
    "Supposed Response: Yes, during Barack Obama's presidency from 2009 to 2017, one film "
    "directed by James Cameron was released - Avatar in 2009.\n"
    "The key knowledge points used in this reasoning process are:\n"
    "1. Barack Obama was the US President from January 20, 2009 to January 20, 2017.\n"
    "2. James Cameron is a famous film director known for movies like Titanic, Avatar, "
    "Terminator 2, etc.\n"
    "3. Cameron's only film release during Obama's presidency was Avatar in 2009."
)

_LEAD = r"^\W*(?:(?:final\s+)?answer\s*[:\-]\W*)?"
_REFUSED = re.compile(
    _LEAD + r"(i\s+(do\s+not|don'?t)\s+know|i\s+am\s+not\s+sure|i'?m\s+not\s+sure|"
    r"i\s+cannot\s+(say|determine|answer)|i\s+can'?t\s+(say|determine|answer)|unknown)\b",
    re.IGNORECASE,
)
_VERDICT = re.compile(_LEAD + r"(yes|no|correct|incorrect|true|false|right|wrong)\b", re.IGNORECASE)
_POINT = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+?)\s*$")
_WORDS = {"yes": "yes", "correct": "yes", "true": "yes", "right": "yes"}


@dataclass(frozen=True)
class Reply:
    """A chatbot's reply, read: its verdict and the knowledge points it listed."""

    verdict: Verdict | None
    knowledge: list[str] = field(default_factory=list)


def render(question: str) -> str:
    """The Table 2 prompt for ``question`` (a question gets its ``?``; a statement to judge
    keeps its full stop)."""
    text = question.strip()
    return PROMPT.format(question=text if text.endswith(("?", ".")) else text + "?")


def parse_reply(text: str) -> Reply:
    """Verdict and knowledge points of ``text`` (see the module docstring)."""
    body = (text or "").strip()
    verdict: Verdict | None = None
    if _REFUSED.match(body):
        verdict = "refused"
    else:
        match = _VERDICT.match(body)
        if match:
            verdict = "yes" if _WORDS.get(match.group(1).lower()) else "no"
    points = [m.group(1) for line in body.splitlines()[1:] if (m := _POINT.match(line))]
    return Reply(verdict, points)
