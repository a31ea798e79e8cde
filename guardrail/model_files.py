"""Read a packaged or user-supplied model file: plain JSON, never pickle."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError


def read_json_model(
    path: str | Path | None, *, package: str, file_name: str, what: str
) -> dict[str, Any]:
    """The JSON object in ``path``, or in ``package``'s ``file_name`` when ``path`` is None.

    Every failure is a :class:`ConfigError` naming ``what`` (e.g. "verifier model").
    """
    try:
        if path is None:
            raw = resources.files(package).joinpath(file_name).read_text(encoding="utf-8")
        else:
            raw = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{what}: cannot read {path or file_name} ({exc})") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{what}: expected a JSON object")
    return data
