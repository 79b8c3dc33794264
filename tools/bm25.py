"""A small BM25 index (pure Python): ranks tools by name, description and parameters for tool_search."""

from __future__ import annotations

import math
import re
from collections import Counter
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

    docs: dict[str, Counter[str]] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)
    frequency: Counter[str] = field(default_factory=Counter)

    def add(self, key: str, text: str) -> None:
        words = tokens(text)
        counts = Counter(words)
        self.docs[key] = counts
        self.lengths[key] = len(words)
        self.frequency.update(counts.keys())

    def search(self, query: str, limit: int = 5) -> list[tuple[str, float]]:
        if not self.docs:
            return []
        n = len(self.docs)
        average = sum(self.lengths.values()) / n or 1.0
        terms = set(tokens(query))
        idf = {t: math.log(1 + (n - self.frequency[t] + 0.5) / (self.frequency[t] + 0.5))
               for t in terms if self.frequency[t]}
        scores: list[tuple[str, float]] = []
        for key, counts in self.docs.items():
            score = 0.0
            norm = K1 * (1 - B + B * self.lengths[key] / average)
            for term, weight in idf.items():
                tf = counts.get(term, 0)
                if tf:
                    score += weight * tf * (K1 + 1) / (tf + norm)
            if score > 0:
                scores.append((key, score))
        scores.sort(key=lambda item: (-item[1], item[0]))
        return scores[:limit]
