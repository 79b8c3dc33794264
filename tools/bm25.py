"""A small BM25 index (pure Python): ranks tools by name, description and parameters for tool_search.

An inverted index: a query touches only the documents that contain one of its words."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

K1, B = 1.5, 0.75
_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case words; snake_case, kebab-case and camelCase split into their parts."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return _WORD.findall(spaced.lower().replace("_", " "))


@dataclass
class Bm25Index:
    """Documents by key; `search` returns the best keys with a positive score, best first."""

    postings: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    lengths: dict[str, int] = field(default_factory=dict)
    _norms: dict[str, float] | None = None

    def add(self, key: str, text: str) -> None:
        words = tokens(text)
        for term, count in Counter(words).items():
            self.postings[term].append((key, count))
        self.lengths[key] = len(words)
        self._norms = None

    def _norm(self) -> dict[str, float]:
        if self._norms is None:
            average = sum(self.lengths.values()) / max(len(self.lengths), 1) or 1.0
            self._norms = {k: K1 * (1 - B + B * n / average) for k, n in self.lengths.items()}
        return self._norms

    def search(self, query: str, limit: int = 5) -> list[tuple[str, float]]:
        n = len(self.lengths)
        norms = self._norm()
        scores: dict[str, float] = defaultdict(float)
        for term in set(tokens(query)):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for key, tf in posting:
                scores[key] += idf * tf * (K1 + 1) / (tf + norms[key])
        ranked = sorted(((k, s) for k, s in scores.items() if s > 0), key=lambda item: (-item[1], item[0]))
        return ranked[:limit]
