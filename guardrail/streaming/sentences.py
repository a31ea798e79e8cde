"""Cut a stream of text chunks into sentences as the chunks arrive.

A sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes or brackets) followed by white
space or by the end of what has arrived so far, or at a newline. Waiting for the white space
would hold every sentence until the *next* token arrives, so an end mark at the end of the
buffer ends the sentence at once — except after a digit ("3." may go on as "3.5"), a single
letter ("J. K.") or a known abbreviation ("e.g."), where the splitter waits for more text.

Sentences are released as exact slices of the input: their concatenation (with
:meth:`SentenceSplitter.flush`) is always the text fed in, so what a user sees is never
altered by the cut — only *when* it is released.

Feeding is linear in the text fed, however it is chunked: each chunk is scanned once (with the
few characters before it that the abbreviation rule reads), received text is kept as a list of
chunks and joined only when a sentence is released, and a sentence end that waits for the next
character is rescanned only when a chunk could change the decision.
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


#: How far before a period :func:`_before_period` reads.
_LOOKBACK = 24
_MARKS = ".!?"
_CLOSERS = "\"'”’)]"
#: Chunks that only lengthen a waiting sentence end (more marks, closing quotes or white space)
#: without deciding it, by what the waiting text ends with.
_EXTENDS = {
    "mark": re.compile(f"[{re.escape(_MARKS)}]*[{re.escape(_CLOSERS)}]*"),
    "closer": re.compile(f"[{re.escape(_CLOSERS)}]*"),
    "space": re.compile(r"\s*"),
}


class SentenceSplitter:
    """Feed chunks in; get each sentence back once it is complete (see the module docstring)."""

    def __init__(self) -> None:
        self._parts: list[str] = []  # received, not yet released; starts a sentence
        self._size = 0
        self._recent = ""  # the last _LOOKBACK characters of the parts
        self._wait: int | None = None  # where a sentence end that needs more text starts

    def _tail(self, start: int) -> str:
        """The received text from offset ``start`` on (joins only the chunks it spans)."""
        need = self._size - start
        picked: list[str] = []
        for part in reversed(self._parts):
            if need <= 0:
                break
            picked.append(part)
            need -= len(part)
        text = "".join(reversed(picked))
        return text[-need:] if need < 0 else text

    def _extends_wait(self, chunk: str) -> bool:
        last = self._parts[-1][-1]
        kind = "mark" if last in _MARKS else "closer" if last in _CLOSERS else "space"
        if kind == "space" and not last.isspace():
            return False
        return _EXTENDS[kind].fullmatch(chunk) is not None

    def feed(self, chunk: str) -> list[str]:
        """Append ``chunk``; return the sentences it completed (possibly none)."""
        if not chunk:
            return []
        if self._wait is not None and self._extends_wait(chunk):
            self._append(chunk)
            return []
        if self._wait is None:  # scan the chunk, with the characters before it the rules read
            look = self._size - len(self._recent)
            window = self._recent + chunk
            scan_from = self._size
            self._append(chunk)
        else:
            scan_from = self._wait
            self._append(chunk)
            look = max(0, scan_from - _LOOKBACK)
            window = self._tail(look)
        cuts: list[int] = []
        self._wait = None
        for m in _END.finditer(window, scan_from - look):
            kind = None if m.group(0)[0] == "\n" else _before_period(window, m.start())
            if kind is not None:
                following = window[m.end() : m.end() + 1]
                if not following:
                    self._wait = look + m.start()  # "3." or "Dr." at the end: the next chunk tells
                    break
                if kind == "abbreviation" or following.islower():
                    continue
            cuts.append(look + m.end())
        if not cuts:
            return []
        text = "".join(self._parts)
        out = [text[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
        rest = text[cuts[-1] :]
        self._parts = [rest] if rest else []
        self._size = len(rest)
        self._recent = rest[-_LOOKBACK:]
        if self._wait is not None:
            self._wait -= cuts[-1]
        return out

    def _append(self, chunk: str) -> None:
        self._parts.append(chunk)
        self._size += len(chunk)
        self._recent = (self._recent + chunk)[-_LOOKBACK:]

    def flush(self) -> str:
        """What is left (the last sentence, unterminated); the splitter is empty afterwards."""
        rest = "".join(self._parts)
        self._parts, self._size, self._recent, self._wait = [], 0, "", None
        return rest

    @property
    def pending(self) -> str:
        """Text received but not yet part of a complete sentence."""
        return "".join(self._parts)
