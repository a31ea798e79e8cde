"""Small builders for policy tests: YAML text, score reports and topic labels."""

from __future__ import annotations

from pathlib import Path

from guardrail.models import ScoreReport, TopicLabel

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "policies"
DEFAULT_POLICY = POLICIES / "default.yaml"

#: A valid policy with one normal and three sensitive topics; tests edit copies of it.
BASE_YAML = """\
name: test
version: 1
topics:
  - name: general
    threshold: 0.5
  - name: pregnancy
    sensitivity: sensitive
    threshold: 0.3
    on_flag:
      highlight: true
      cite: true
      regenerate: {max_attempts: 1}
      escalate: {queue: clinical-review}
  - name: asylum
    sensitivity: sensitive
    threshold: 0.3
    on_flag:
      cite: true
      abstain: {message: Expert verification is needed.}
      escalate: {queue: asylum}
  - name: labour
    sensitivity: sensitive
    threshold: 0.3
    on_flag:
      cite: true
"""


def report(score: float, threshold: float = 0.5) -> ScoreReport:
    """A minimal score report; the engine reads only ``score``."""
    return ScoreReport(score=score, threshold=threshold, flagged=score >= threshold)


def label(name: str, confidence: float = 0.9) -> TopicLabel:
    return TopicLabel(label=name, confidence=confidence)
