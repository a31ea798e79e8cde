"""Sub-factoid localization: narrow flagged factoids to the words that carry the hallucination.

See :class:`~guardrail.localize.model.TokenLocalizer` (the packaged, judge-independent model)
and :class:`~guardrail.localize.model.SpanLocalizer` (the protocol scorers accept).
"""

from guardrail.localize.model import SpanLocalizer, TokenLocalizer, packaged_localizer

__all__ = ["SpanLocalizer", "TokenLocalizer", "packaged_localizer"]
