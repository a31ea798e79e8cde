"""The question prompt (HalluVault Table 2) and reading a reply's verdict and knowledge.

The chatbot is asked for yes / no / I don't know, a step-by-step answer, then the knowledge it
used as numbered declarative sentences. The paper's wording is kept, with the question moved to
the end: every prompt then shares its instructions and worked example as one prefix, which a
model server's prefix cache (llama.cpp's, vLLM's, OpenAI's) reads once instead of per
question. :func:`parse_reply` reads the verdict from the start
of the reply (``refused`` for "I don't know" and its usual paraphrases, ``None`` when no
verdict can be found) and the knowledge points (numbered or bulleted lines after the verdict).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["yes", "no", "refused"]

PROMPT = (
    "Instruction: Answer the question with your knowledge and reasoning power. "
    "Answer yes, no or I don't know first.\n"
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
    "3. Cameron's only film release during Obama's presidency was Avatar in 2009.\n"
    "Query: Now given the question: {question}, please provide an answer with your knowledge "
    "and reasoning power. Answer yes, no or I don't know first."
)

_VERDICT_WORDS = r"(yes|no|correct|incorrect|true|false|right|wrong)\b"
_REFUSAL = (
    r"(i\s+(?:do\s+not|don'?t)\s+know|i\s+am\s+not\s+sure|i'?m\s+not\s+sure|"
    r"i\s+(?:cannot|can'?t|am\s+unable\s+to)\s+(?:say|determine|answer|tell)|unknown|"
    r"i\s+(?:do\s+not|don'?t)\s+have\s+(?:enough\s+|sufficient\s+)?information|"
    r"(?:there\s+is\s+)?not\s+enough\s+information|"
    r"it\s+is\s+(?:not\s+possible|impossible)\s+to\s+(?:say|determine|tell))\b"
)
_LEAD = r"^\W*(?:(?:final\s+)?answer\s*[:\-]\W*)?"
_REFUSED = re.compile(_LEAD + _REFUSAL, re.IGNORECASE)
_VERDICT = re.compile(_LEAD + _VERDICT_WORDS, re.IGNORECASE)
_QUOTED = r"(?:\"[^\"\n]*\"|“[^”\n]*”|'[^'\n]*'|«[^»\n]*»)"
#: "The answer to the question "..." is:", "the answer is", "my answer would be -",
#: "Answer:", "the statement is": what may stand before the verdict
_LEAD_IN = re.compile(
    r"\b(?:(?:the|my|our)\s+)?(?:final\s+|short\s+|correct\s+)?answer"
    r"(?:\s+to\s+(?:the|this|your)\s+(?:question|query|statement)(?:\s*[:,]?\s*" + _QUOTED + r")?)?"
    r"\s*(?:(?:is|would\s+be|will\s+be)\s*[:\-]?|[:\-])"
    r"|\b(?:the|this)\s+statement(?:\s*[:,]?\s*" + _QUOTED + r")?\s+is\s*[:\-]?",
    re.IGNORECASE,
)
_AFTER_LEAD = re.compile(
    r"^[\s*_`\"'“”:.\-]*(?:" + _REFUSAL + "|" + _VERDICT_WORDS + ")", re.IGNORECASE
)
_OPENING_QUOTE = re.compile(r"^\W*" + _QUOTED + r"\W*")
_POINT = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+?)\s*$")
_WORDS = {"yes": "yes", "correct": "yes", "true": "yes", "right": "yes"}
_WORD = re.compile(r"[a-z0-9']+")
_SHINGLE = 5  # words: a reply line sharing half its 5-word runs with the prompt is an echo


@dataclass(frozen=True)
class Reply:
    """A chatbot's reply, read: its verdict and the knowledge points it listed (``note``: why
    no verdict was read, when that is known)."""

    verdict: Verdict | None
    knowledge: list[str] = field(default_factory=list)
    note: str = ""


def render(question: str) -> str:
    """The Table 2 prompt for ``question`` (a question gets its ``?``; a statement to judge
    keeps its full stop)."""
    text = question.strip()
    return PROMPT.format(question=text if text.endswith(("?", ".")) else text + "?")


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + _SHINGLE]) for i in range(len(words) - _SHINGLE + 1)}


_PROMPT_SHINGLES = _shingles(PROMPT.replace("{question}", " "))


def _echoes(line: str, question: str) -> bool:
    """Whether ``line`` copies the prompt's own text (its instructions or its example), not
    counting the words of the question asked."""
    mine = _shingles(line) - _shingles(question)
    return bool(mine) and 2 * len(mine & _PROMPT_SHINGLES) >= len(mine)


def _verdict_at_start(text: str) -> Verdict | None:
    if _REFUSED.match(text):
        return "refused"
    match = _VERDICT.match(text)
    if match:
        return "yes" if _WORDS.get(match.group(1).lower()) else "no"
    return None


def _word_verdict(word: str) -> Verdict:
    if re.match(_REFUSAL, word, re.IGNORECASE):
        return "refused"
    return "yes" if _WORDS.get(word.lower()) else "no"


def _find_verdict(text: str, question: str) -> tuple[Verdict | None, int]:
    """The verdict and the offset where it was read (-1: none)."""
    found = _verdict_at_start(text)
    if found is not None:
        return found, 0
    rest = text
    quoted = _OPENING_QUOTE.match(rest)  # the reply restates the question in quotes first
    asked = question.strip().rstrip("?.").strip()
    if quoted is None and asked and rest.lower().lstrip(" *_\"'").startswith(asked.lower()):
        start = rest.lower().index(asked.lower()) + len(asked)
        quoted = re.match(rf".{{{start}}}[?.\s*_\"'”:]*", rest, re.DOTALL)
    if quoted is not None:
        found = _verdict_at_start(rest[quoted.end() :])
        if found is not None:
            return found, quoted.end()
    for lead in _LEAD_IN.finditer(text):
        after = _AFTER_LEAD.match(text[lead.end() :])
        if after is not None:
            word = after.group(after.lastindex or 0)
            return _word_verdict(word), lead.start()
    return None, -1


def parse_reply(text: str, question: str = "") -> Reply:
    """Verdict and knowledge points of ``text``, the reply to ``question``.

    The verdict is read at the start of the reply, after a restatement of the question, or
    after a lead-in such as "The answer to the question "..." is:", "Based on the provided
    information, the answer is:" or "Answer:". Lines that copy the prompt's own text (its
    instructions, its Barack Obama example) are dropped first: a reply that only parrots the
    example has no verdict (``note`` says so). Knowledge points are the numbered or bulleted
    lines after the verdict's line.
    """
    lines = (text or "").strip().splitlines()
    kept = [line for line in lines if not _echoes(line, question)]
    body = "\n".join(kept).strip()
    verdict, at = _find_verdict(body, question)
    note = ""
    if verdict is None:
        if lines and len(kept) < len(lines) and not body:
            note = "the reply only repeats the prompt's own text"
        elif lines and len(kept) < len(lines):
            note = "no verdict outside the lines that repeat the prompt"
    first = body[:at].count("\n") + 1 if at >= 0 else 1
    points = [m.group(1) for line in body.splitlines()[first:] if (m := _POINT.match(line))]
    return Reply(verdict, points, note)
