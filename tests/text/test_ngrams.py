"""The word n-gram index."""

from __future__ import annotations

from guardrail.text.ngrams import NgramIndex, bigrams, trigrams


def test_index_holds_every_unigram_bigram_and_trigram():
    index = NgramIndex.of(["the", "dose", "is", "the", "dose"])
    assert index.unigrams == {"the", "dose", "is"}
    assert index.bigrams == {("the", "dose"), ("dose", "is"), ("is", "the")}
    assert index.trigrams == {("the", "dose", "is"), ("dose", "is", "the"), ("is", "the", "dose")}
    assert ("dose", "the") not in index.bigrams


def test_short_sequences_have_no_longer_ngrams():
    assert list(bigrams(["a"])) == [] and list(trigrams(["a", "b"])) == []
    assert NgramIndex.of([]) == NgramIndex(frozenset(), frozenset(), frozenset())
