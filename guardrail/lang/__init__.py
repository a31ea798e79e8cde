"""Languages: which language a turn is written in, and what the offline judge can read.

* :func:`detect` / :func:`detect_turn` identify the language of a text and of a whole turn
  (question, answer, retrieved passages) offline (:mod:`guardrail.lang.detect`).
* :data:`OFFLINE_JUDGE_LANGUAGES` are the languages the offline judge verifies: those whose
  checks (numbers, dates, negations, opposites ...) it has and whose suites it passes.
"""

from __future__ import annotations

from guardrail.lang.detect import UNDETERMINED, Detected, detect, detect_turn, detect_with_prior

#: What the offline judge (``local``, ``local:rules`` ...) verifies. A turn in any other
#: language is decided by the policy's ``languages`` rule, never scored as if it were read.
OFFLINE_JUDGE_LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "es", "it", "pt", "nl")

__all__ = [
    "OFFLINE_JUDGE_LANGUAGES",
    "UNDETERMINED",
    "Detected",
    "detect",
    "detect_turn",
    "detect_with_prior",
]
