"""BM25 ranking over short documents (a memory's name and description), built once and reused.

Okapi BM25 with the usual k1 = 1.2, b = 0.75. Names are split on underscores, so the memory
`indent_with_tabs` is found by "tabs". Only documents sharing a term with the query are scored
(postings), so selection over 10,000 memories stays a few milliseconds.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from typing import Hashable, Iterable

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOPWORDS = frozenset("""a an and are as at be by for from has have i in is it its of on or that the this
to was were will with you we our not no do does so if then than but what when which who how""".split())


def tokens(text: str) -> list[str]:
    """Lowercased words of `text` (underscores split words), stopwords dropped."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class BM25Index:
    """An index of documents keyed by any hashable id; `rank(query)` gives (id, score), best first."""

    def __init__(self, documents: Iterable[tuple[Hashable, str]]) -> None:
        self._lengths: dict[Hashable, int] = {}
        self._postings: dict[str, dict[Hashable, int]] = defaultdict(dict)
        for key, text in documents:
            words = tokens(text)
            self._lengths[key] = len(words)
            for word, count in Counter(words).items():
                self._postings[word][key] = count
        total = sum(self._lengths.values())
        self._average = total / len(self._lengths) if self._lengths else 0.0
        self._weights: dict[str, dict[Hashable, float]] = {}  # word -> its score in each document

    def __len__(self) -> int:
        return len(self._lengths)

    def idf(self, word: str) -> float:
        """Inverse document frequency, never negative (the +1 form)."""
        n, df = len(self._lengths), len(self._postings.get(word, ()))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def weights(self, word: str) -> dict[Hashable, float]:
        """The BM25 score `word` adds to each document holding it (computed once per word)."""
        cached = self._weights.get(word)
        if cached is None:
            idf, average = self.idf(word), self._average or 1
            cached = self._weights[word] = {
                key: idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self._lengths[key] / average))
                for key, tf in self._postings.get(word, {}).items()}
        return cached

    def rank(self, query: str, *, allowed: set[Hashable] | None = None,
             top: int | None = None) -> list[tuple[Hashable, float]]:
        """Documents sharing a word with `query`, by BM25 score (ties: the key order), best first;
        only the best `top` when given. `allowed` restricts the result to those keys (visible scopes)."""
        scores: dict[Hashable, float] = defaultdict(float)
        for word in set(tokens(query)):
            for key, weight in self.weights(word).items():
                scores[key] += weight
        items = scores.items() if allowed is None else ((k, v) for k, v in scores.items() if k in allowed)
        order = lambda item: (-item[1], str(item[0]))  # noqa: E731
        return heapq.nsmallest(top, items, key=order) if top is not None else sorted(items, key=order)
