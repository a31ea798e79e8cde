"""Fold text so that lookalikes compare equal, and defuse imitations of the data-fence lines.

Scorer and probe prompts put untrusted text (answers, passages, chatbot replies) between a
``[BEGIN DATA <marker>: name]`` and an ``[END DATA <marker>: name]`` line. The marker is random,
so text cannot close the fence for real; but text that *looks* like a fence line could still
mislead a judge, so every imitation is defused: its opening bracket becomes ``(``. This module
is the one place that decides what counts as an imitation, for every prompt guardrail builds.

An imitation is found on the *folded* text (:func:`fold`), where, character by character:

* compatibility forms are decomposed (NFKD): fullwidth ``［ＥＮＤ``, mathematical and enclosed
  letters, ligatures and no-break spaces become their plain forms, accented letters a plain
  letter and a combining mark;
* combining marks (accents, and the variation selectors U+FE00-U+FE0F, U+E0100-U+E01EF) and
  format characters (zero-width spaces and joiners, soft hyphens, the BOM, tag characters) are
  dropped;
* letters that render blank (U+3164 HANGUL FILLER, U+115F, U+1160, U+FFA0, U+2800 BRAILLE
  PATTERN BLANK) become a space;
* common lookalikes of Latin letters become the letter they imitate: Cyrillic ``ЕND``, Greek
  ``ΕΝΔ``'s look-alike capitals, Armenian, Cherokee and small-capital forms (a subset of
  Unicode's confusables for the Latin alphabet, the letters a fence line is written with
  included);
* any opening bracket (``【``, ``〔``, ``⟦`` ...) becomes ``[`` and any closing one ``]``; the
  round ``(`` and ``)`` stay, because ``(`` is what defusing writes, and so do ASCII braces;
* runs of white space become one space (line breaks too, unless ``lines=True``): so
  ``[END\\nDATA`` is caught like ``[END DATA``.

:func:`rough_fold` does the same with C-speed string operations on the whole text (without
collapsing white space); it is the filter in front of the per-character :func:`fold`, which
also returns where each folded character came from.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

__all__ = ["FENCE_HINT", "FENCE_LOOKALIKE", "defuse", "fold", "has_fence_lookalike", "rough_fold"]

#: A fence line's opening, matched on folded text: ``[END DATA``, ``[ begin_data`` ...
FENCE_LOOKALIKE = re.compile(r"\[ ?(BEGIN|END)[ _\-]?DATA", re.IGNORECASE)
#: What :func:`has_fence_lookalike` looks for in the rough fold first (a superset).
FENCE_HINT = re.compile(r"\[\s*+(?:BEGIN|END)[\s_\-]*+DATA", re.IGNORECASE)

_BLANK_LETTERS = "\u115f\u1160\u3164\uffa0\u2800"

# Lookalikes of Latin letters, as pairs of strings of the same length: (lookalikes, letters).
_CONFUSABLE_PAIRS = (
    # Cyrillic capitals and small letters
    ("АВСЕНІЈКМОРЅТХУҮӀԀԚԜ", "ABCEHIJKMOPSTXYYIDQW"),
    ("асеорхуіјѕԁԛԝһӏ", "aceopxyijsdqwhl"),
    # Greek capitals and small letters
    ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϜ", "ABEZHIKMNOPTYXF"),
    ("οιρνυχκ", "oipvuxk"),
    # Armenian
    ("ՕՍՏօսհոզց", "OUSoshnqg"),
    # Cherokee capitals
    ("ᎪᏴᏟᎬᏀᎻᎫᏦᎷᏢᏚᎢᏔᏃᎠ", "ABCEGHJKMPSTWZD"),
    # Latin small capitals and dotless letters
    ("ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢıȷɡ", "ABCDEGHIJKLMNOPRSTUVWYZijg"),
)


@functools.cache
def _table() -> dict[int, str | None]:
    """The per-character map of :func:`fold` after NFKD (built once, on first use)."""
    table: dict[int, str | None] = {}
    for code in range(sys.maxunicode + 1):
        category = unicodedata.category(chr(code))
        if category in ("Mn", "Me", "Cf"):
            table[code] = None
        elif category == "Ps" and chr(code) not in "({":
            table[code] = "["
        elif category == "Pe" and chr(code) not in ")}":
            table[code] = "]"
    for char in _BLANK_LETTERS:
        table[ord(char)] = " "
    for lookalikes, letters in _CONFUSABLE_PAIRS:
        for lookalike, letter in zip(lookalikes, letters, strict=True):
            table[ord(lookalike)] = letter
    return table


def rough_fold(text: str) -> str:
    """``text`` decomposed (NFKD) as a whole and mapped as :func:`fold` maps it, white space
    left as it is. ASCII text is returned unchanged."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKD", text).translate(_table())


def fold(text: str, *, lines: bool = False) -> tuple[str, list[int]]:
    """``text`` folded (see the module docstring), and each folded character's index in
    ``text``. White space runs become one space; with ``lines=True`` a line break stays a
    line break."""
    table = _table()
    out: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        pieces = char if char < "\x80" else unicodedata.normalize("NFKD", char).translate(table)
        for piece in pieces:
            if piece.isspace():
                piece = "\n" if lines and piece == "\n" else " "
                if out and out[-1] == " " and piece == " ":
                    continue
            out.append(piece)
            where.append(index)
    return "".join(out), where


def has_fence_lookalike(text: str) -> bool:
    """True when ``text`` holds something a reader could take for a fence line's opening."""
    if FENCE_HINT.search(rough_fold(text)) is None:
        return False
    return FENCE_LOOKALIKE.search(fold(text)[0]) is not None


@functools.lru_cache(maxsize=64)
def defuse(text: str) -> str:
    """``text`` with the opening bracket of every fence-line lookalike replaced by ``(``; the
    rest of the text is unchanged. Text without one is returned as it is (the same object).

    Cached: a scorer fences one context into every prompt it sends for an answer.
    """
    if FENCE_HINT.search(rough_fold(text)) is None:
        return text
    folded, where = fold(text)
    starts = sorted({where[m.start()] for m in FENCE_LOOKALIKE.finditer(folded)})
    if not starts:
        return text
    chars = list(text)
    for index in starts:
        chars[index] = "("
    return "".join(chars)
