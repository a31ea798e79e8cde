"""The one text layer: tokens with offsets, sentences, stems and n-grams.

Every part of guardrail that reads text — the scorers' span alignment, RT4CHART's sentences and
chunks, the offline judge, the word localizer, citations and the review page — goes through
these modules, so a rule (an abbreviation, a stop word) is written once:

=================  =================================================================
``tokens``         :class:`Token` (text + character offsets) and :func:`tokenize`
``stemming``       :func:`light_stem` (alignment keys) and :func:`stem` (the judge's)
``sentences``      :func:`split_sentences` and the one abbreviation list
``ngrams``         :class:`NgramIndex`: word uni/bi/trigrams of a context
``edits``          small rewrites of sentences: citations, labels, capitals, periods
=================  =================================================================

Nothing here imports the rest of the package but :data:`guardrail.models.Span`.
Import the module you need (``from guardrail.text.tokens import tokenize``).
"""
