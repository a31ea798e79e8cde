"""The serving core shared by ``guardrail serve`` and ``guardrail proxy``.

Importing it needs no web framework: the limits, the body reader, the scheduler and the core
are plain Python, so both commands declare and check their flags (and print ``--help``)
without the ``server`` extra. See :mod:`guardrail.serving.core`.
"""
