"""Small rewrites of a sentence: citation markers, passage labels, capitals, final periods."""

from __future__ import annotations

import re

_PASSAGE_LABEL = re.compile(r"^\s*(?:passage|document|doc|source|context)\s*\d*\s*[:.]\s*", re.I)
_CITATION = re.compile(
    r"\s*(?:\((?:see\s+)?(?:passages?|sources?|documents?|refs?\.?)\s*[\d\s,&and-]*\)"
    r"|\[\d+(?:\s*[,-]\s*\d+)*\]"
    r"|,?\s+(?:as\s+(?:described|stated|mentioned|noted)\s+)?(?:in|according\s+to)\s+"
    r"(?:passages?|sources?|documents?)\s+\d+(?:\s*(?:,|and|&)\s*\d+)*)",
    re.IGNORECASE,
)


def strip_citations(text: str) -> str:
    """Drop "(Passage 2)", "[3]", "as described in passage 1" — pointers, not claims."""
    return _CITATION.sub("", text)


def strip_passage_label(sentence: str) -> str:
    """Drop a leading "passage 2:" label (RAG contexts often carry them)."""
    return _PASSAGE_LABEL.sub("", sentence, count=1)


def capitalize_first(text: str) -> str:
    """Upper-case the first letter, leave the rest alone."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
        if not ch.isspace() and ch not in "\"'“‘(":
            return text
    return text


def ensure_period(text: str) -> str:
    """End a sentence with terminal punctuation."""
    text = text.rstrip()
    text = text.rstrip(",;:—–-").rstrip()
    if text and text[-1] not in ".!?\"'”’)。！？":
        text += "."
    return text
