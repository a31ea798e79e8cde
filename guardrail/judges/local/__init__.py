"""The offline judge: rule-based decomposition, mutation and lexical verification.

No network, no API key, no model weights; deterministic. See :class:`LocalJudge`.
"""

from guardrail.judges.local.judge import MODEL, LocalJudge

__all__ = ["MODEL", "LocalJudge"]
