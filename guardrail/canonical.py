"""Canonical JSON: sorted keys, no white space, UTF-8 kept, no NaN, nothing implicit.

The one serialization that hashes are computed over (the audit chain, a policy's content
hash) and that audit lines are written in, so equal data always gives equal bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _refuse(value: Any) -> Any:
    raise TypeError(f"not JSON-serializable in an audit record: {type(value).__name__}")


#: ``json.dumps`` keyword arguments for the canonical form.
CANONICAL_JSON_KW: dict[str, Any] = {
    "sort_keys": True,
    "separators": (",", ":"),
    "ensure_ascii": False,
    "allow_nan": False,
    "default": _refuse,
}


def canonical_json(obj: Mapping[str, Any]) -> str:
    """``obj`` as canonical JSON text."""
    return json.dumps(obj, **CANONICAL_JSON_KW)
