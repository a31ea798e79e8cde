"""Word n-grams: the one index of which words, word pairs and word triples a context holds."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Generic, TypeVar

W = TypeVar("W", bound=Hashable)


def bigrams(words: Sequence[W]) -> Iterator[tuple[W, W]]:
    """Adjacent word pairs, in order."""
    return pairwise(words)


def trigrams(words: Sequence[W]) -> Iterator[tuple[W, W, W]]:
    """Adjacent word triples, in order."""
    return zip(words, words[1:], words[2:], strict=False)


@dataclass(frozen=True)
class NgramIndex(Generic[W]):
    """The words, bigrams and trigrams of one text (built once, queried many times)."""

    unigrams: frozenset[W]
    bigrams: frozenset[tuple[W, W]]
    trigrams: frozenset[tuple[W, W, W]]

    @classmethod
    def of(cls, words: Sequence[W]) -> NgramIndex[W]:
        return cls(frozenset(words), frozenset(bigrams(words)), frozenset(trigrams(words)))
