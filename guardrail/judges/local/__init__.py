"""The offline judge: rule-based decomposition and mutation, and a choice of verifiers.

No network, no API key; deterministic. See :class:`LocalJudge`, the
:class:`~guardrail.judges.local.verifiers.Verifier` protocol and :func:`make_local_judge`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guardrail.judges.local.judge import LocalJudge
from guardrail.judges.local.verifiers import (
    DEFAULT_VERIFIER,
    MODEL,
    VERIFIERS,
    Verifier,
    make_verifier,
    register_verifier,
)

__all__ = [
    "MODEL",
    "VERIFIERS",
    "LocalJudge",
    "Verifier",
    "make_local_judge",
    "make_verifier",
    "register_verifier",
]


def make_local_judge(
    suffix: str = "", *, model_path: str | Path | None = None, **options: Any
) -> LocalJudge:
    """The judge a ``local[:VERIFIER]`` spec names: ``suffix`` is the part after ``local:``
    ("" for the default verifier), ``model_path`` points a fitted verifier at another model,
    ``options`` go to :class:`LocalJudge` (thresholds, ``cache_size``)."""
    return LocalJudge(verifier=suffix or DEFAULT_VERIFIER, model_path=model_path, **options)
