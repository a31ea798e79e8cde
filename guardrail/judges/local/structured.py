"""Structured (JSON) contexts rewritten as short sentences the lexical matcher can use.

Data-to-text RAG contexts are JSON records (``"RestaurantsTakeOut": true``, ``"WiFi": "free"``,
``"Monday": "11:0-21:0"``). Matched as raw text they defeat a word matcher: the key is one token
("restaurantstakeout"), ``false`` is not a negation, ``null`` looks like a word, and times are
written differently from any answer. :func:`json_to_prose` turns every leaf into one line:
``restaurants take out: yes``, ``outdoor seating: no``, ``music: not known``,
``monday: 11:00-21:00 (11 am to 9 pm)``; long strings (reviews) are kept as their own text.
Anything that is not a JSON object or array is returned unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|_+")
_TIME_RANGE = re.compile(r"^(\d{1,2}):(\d{1,2})-(\d{1,2}):(\d{1,2})$")
_ALIASES = {"wifi": "wi-fi", "wi fi": "wi-fi"}
_CONTAINERS = frozenset({"attributes", "review info", "reviews"})
_LONG_TEXT = 60
_MAX_LINES = 2000


def key_words(key: str) -> str:
    words = " ".join(p for p in _CAMEL.split(str(key)) if p).lower().strip()
    return _ALIASES.get(words, words)


def _clock(hour: int, minute: int) -> str:
    suffix = "am" if hour % 24 < 12 else "pm"
    h12 = hour % 12 or 12
    return f"{h12} {suffix}" if minute == 0 else f"{h12}:{minute:02d} {suffix}"


def _scalar(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "not known"
    text = str(value).strip()
    m = _TIME_RANGE.match(text)
    if m:
        h1, m1, h2, m2 = (int(g) for g in m.groups())
        return f"{h1}:{m1:02d}-{h2}:{m2:02d} ({_clock(h1, m1)} to {_clock(h2, m2)})"
    if text.startswith("u'") or text.startswith("'"):
        text = text.lstrip("u").strip("'")
    return _ALIASES.get(text.lower(), text)


def _lines(value: Any, path: list[str], out: list[str]) -> None:
    if len(out) >= _MAX_LINES:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            _lines(inner, [*path, key_words(key)], out)
        return
    if isinstance(value, list):
        for inner in value:
            _lines(inner, path, out)
        return
    kept = [p for p in path if p and p not in _CONTAINERS]
    label = " ".join(kept[-2:])
    if isinstance(value, str) and len(value) > _LONG_TEXT:
        out.append(value.strip())
        return
    scalar = _scalar(value)
    out.append(f"{label}: {scalar}." if label else f"{scalar}.")


def load_json(context: str) -> dict[str, Any] | list[Any] | None:
    """``context`` parsed when it is a JSON object or array, else ``None``."""
    stripped = context.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        data = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, (dict, list)) else None


def json_to_prose(context: str) -> str:
    """Rewrite a JSON object/array context as one line per leaf; other text is unchanged."""
    data = load_json(context)
    if data is None:
        return context
    out: list[str] = []
    _lines(data, [], out)
    return "\n".join(out) if out else context
