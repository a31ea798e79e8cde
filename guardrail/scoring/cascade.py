"""The cascade: the offline verifier screens each factoid before any LLM call.

A factoid whose *unsupported-risk* (the trained offline verifier's probability that the context
does not support it; see :meth:`~guardrail.judges.local.verifiers.TrainedVerifier.risk`) is at or
below the cut-off is **settled as supported**: it gets no mutations and no verify calls, and
its score is 0.0 (what MetaRAG gives a factoid whose synonyms are all YES and antonyms all NO).
Every other factoid, including those the screen cannot weigh (no content words) or sees
reversed against the context, goes to the LLM exactly as without the cascade. The screen only
ever *removes* LLM work for factoids it is confident about; it never flags on its own.

The packaged cut-off (``cascade.json`` beside this module) is chosen by
``scripts/calibrate_cascade.py``: on RAGTruth dev, every factoid is scored by a verifier that
did not see its source document (grouped cross-fitting), and the cut-off is the loosest one
whose settled factoids overlap a gold hallucinated span at most ``fit_target`` of the time;
the file records the cross-validated figures (share settled, error among settled).

Per topic, a policy may override it (``topics[].cascade``: ``false`` = always the LLM, a
number = that topic's cut-off, ``true`` = the scorer's cut-off).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.model_files import read_json_model

CASCADE_FORMAT = "guardrail-cascade/1"
CASCADE_FILE = "cascade.json"

#: What a caller may ask of the cascade for one answer: ``None`` = the scorer's settings,
#: ``False`` = off, ``True`` = on at the scorer's cut-off, a number = on at that cut-off.
CascadeChoice = bool | float | None


@dataclass(frozen=True)
class Calibration:
    """The packaged cut-off and the figures it was chosen with."""

    cutoff: float
    meta: dict[str, Any]


@cache
def packaged_calibration() -> Calibration:
    """``cascade.json``, read once."""
    data = read_json_model(
        None, package="guardrail.scoring", file_name=CASCADE_FILE, what="cascade calibration"
    )
    if data.get("format") != CASCADE_FORMAT:
        raise ConfigError(f"cascade calibration: expected format {CASCADE_FORMAT!r}")
    cutoff = data.get("cutoff")
    if not isinstance(cutoff, int | float) or not 0.0 <= cutoff <= 1.0:
        raise ConfigError("cascade calibration: 'cutoff' must be a number in [0, 1]")
    return Calibration(float(cutoff), dict(data.get("meta") or {}))


def resolve_cutoff(choice: CascadeChoice, enabled: bool, configured: float | None) -> float | None:
    """The cut-off for one answer, or ``None`` when the screen is off for it.

    ``choice`` is the caller's (a topic's) wish, ``enabled`` and ``configured`` the scorer's
    ``cascade`` and ``cascade_cutoff`` settings.
    """
    if choice is False or (choice is None and not enabled):
        return None
    if isinstance(choice, float | int) and not isinstance(choice, bool):
        if not 0.0 <= choice <= 1.0:
            raise ConfigError(f"cascade cut-off must be within [0, 1], got {choice}")
        return float(choice)
    return configured if configured is not None else packaged_calibration().cutoff


class Screen:
    """Unsupported-risk of factoids against a context, from the offline trained verifier."""

    name = "local-trained"

    def __init__(self) -> None:
        from guardrail.judges.local.verifiers import TrainedVerifier

        self._verifier = TrainedVerifier(cache_size=4)

    def risks(self, factoids: Sequence[str], context: str) -> list[float | None]:
        """One risk per factoid (``None``: the screen cannot weigh it)."""
        return [self._verifier.risk(text, context) for text in factoids]
