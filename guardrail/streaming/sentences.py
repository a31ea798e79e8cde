"""Cut a stream of text chunks into sentences as the chunks arrive.

A sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes or brackets) followed by white
space or by the end of what has arrived so far, or at a newline. Waiting for the white space
would hold every sentence until the *next* token arrives, so an end mark at the end of the
buffer ends the sentence at once — except after a digit ("3." may go on as "3.5"), a single
letter ("J. K.") or a known abbreviation ("e.g."), where the splitter waits for more text.

Sentences are released as exact slices of the input: their concatenation (with
:meth:`SentenceSplitter.flush`) is always the text fed in, so what a user sees is never
altered by the cut — only *when* it is released.
"""

from __future__ import annotations

import re

from guardrail.text.sentences import ABBREVIATIONS

__all__ = ["SentenceSplitter"]

_END = re.compile(r"[.!?]+[\"'”’)\]]*(?:\s+|\Z)|\n+")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*|\d+)\Z")


def _before_period(text: str, mark: int) -> str | None:
    """``"number"`` or ``"abbreviation"`` when the period at ``mark`` may not end a sentence."""
    if text[mark] != ".":
        return None
    m = _WORD_BEFORE.search(text[max(0, mark - 24) : mark])
    if m is None:
        return None
    word = m.group(1)
    if word.isdigit():
        return "number"
    if len(word) == 1 or word.lower().rstrip(".") in ABBREVIATIONS:
        return "abbreviation"
    return None


class SentenceSplitter:
    """Feed chunks in; get each sentence back once it is complete (see the module docstring)."""

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, chunk: str) -> list[str]:
        """Append ``chunk``; return the sentences it completed (possibly none)."""
        text = self._buffer + chunk
        out: list[str] = []
        start = 0
        for m in _END.finditer(text):
            kind = None if m.group(0)[0] == "\n" else _before_period(text, m.start())
            if kind is not None:
                following = text[m.end() : m.end() + 1]
                if not following:
                    break  # "3." or "Dr." at the end: the next chunk tells
                if kind == "abbreviation" or following.islower():
                    continue
            out.append(text[start : m.end()])
            start = m.end()
        self._buffer = text[start:]
        return out

    def flush(self) -> str:
        """What is left (the last sentence, unterminated); the splitter is empty afterwards."""
        rest, self._buffer = self._buffer, ""
        return rest

    @property
    def pending(self) -> str:
        """Text received but not yet part of a complete sentence."""
        return self._buffer
