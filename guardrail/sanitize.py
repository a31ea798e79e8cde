"""Text that every part of guardrail can store, encode and show: one rule, two strictnesses.

Some code points break the parts behind the scorer rather than the scorer itself:

* **lone surrogates** (U+D800-U+DFFF without a partner) — JSON allows ``"\\ud800"``, JavaScript
  clients produce them when they cut a string inside an emoji, and Python keeps them in a
  ``str``; but they cannot be encoded as UTF-8, so the audit log, the review database and the
  reply would fail;
* **NUL** — PostgreSQL refuses it in text, C libraries stop at it;
* **non-characters** (U+FFFE, U+FFFF, U+FDD0-U+FDEF and the last two code points of every
  plane) — reserved by Unicode for internal use, never meaningful in exchanged text.

:func:`clean_text` replaces each with U+FFFD (the replacement character) and counts them, so a
turn carrying one is still scored, audited and escalated like any other (the HTTP service does
this to every string of a request and says how many it replaced in a reply header).
:func:`require_clean` refuses them instead, for command-line arguments, where a surrogate means
the shell passed bytes that are not valid in the locale's encoding.
"""

from __future__ import annotations

import re
from typing import Any

from guardrail.exceptions import ConfigError

__all__ = ["REPLACEMENT", "clean_json", "clean_text", "require_clean"]

REPLACEMENT = "\ufffd"

_ODD = re.compile(
    "[\x00\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(1, 17))
    + "]"
)


def clean_text(text: str) -> tuple[str, int]:
    """``text`` with every odd code point (see the module docstring) replaced by U+FFFD, and
    how many were replaced. Text without any is returned as is (one regex scan)."""
    if _ODD.search(text) is None:
        return text, 0
    return _ODD.subn(REPLACEMENT, text)


def clean_json(value: Any) -> tuple[Any, int]:
    """Parsed JSON with :func:`clean_text` applied to every string (keys included), and the
    number of replaced code points. Recursive: bound the nesting before calling it."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        items = [clean_json(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        total = 0
        out: dict[str, Any] = {}
        for key, item in value.items():
            k, n_k = clean_text(key)
            v, n_v = clean_json(item)
            out[k] = v
            total += n_k + n_v
        return out, total
    return value, 0


def require_clean(text: str, what: str) -> str:
    """``text`` unchanged, or :class:`ConfigError` naming ``what`` and the first odd position.

    Python turns command-line bytes that are not valid in the locale's encoding into lone
    surrogates; they are refused here rather than failing later when the text is encoded.
    """
    found = _ODD.search(text)
    if found is None:
        return text
    char = found.group()
    kind = "undecodable byte" if "\udc80" <= char <= "\udcff" else f"U+{ord(char):04X}"
    raise ConfigError(f"{what}: {kind} at character {found.start()}; pass UTF-8 text (or @FILE)")
