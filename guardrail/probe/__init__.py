"""``guardrail probe``: HalluVault-style metamorphic testing of a chatbot before it goes live.

Facts in (:mod:`~guardrail.probe.facts`), logically derived facts out of a real logic engine
(:mod:`~guardrail.probe.reasoning`, clingo), each with its derivation.
"""
