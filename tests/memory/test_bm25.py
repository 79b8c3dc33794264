"""BM25 over memory names and descriptions: ranking tables worked out by hand."""

from __future__ import annotations

import math

import pytest

from app.memory.bm25 import BM25Index, tokens

DOCS = [
    (1, "indent_with_tabs The project indents with tabs, not spaces"),
    (2, "test_command Run the tests with pytest -q"),
    (3, "user_name The user is called Ada"),
    (4, "tabs_in_makefiles Makefiles need tabs; tabs tabs"),
]


def test_tokens_split_snake_case_and_drop_stopwords():
    assert tokens("indent_with_tabs: The Tabs, not spaces") == ["indent", "tabs", "tabs", "spaces"]


@pytest.mark.parametrize("query, expected", [
    ("tabs", [4, 1]),  # more occurrences in a short document rank higher
    ("spaces or tabs", [1, 4]),  # two matching words beat one repeated
    ("how do I run pytest", [2]),
    ("who is ada", [3]),
    ("kubernetes", []),
    ("", []),
])
def test_ranking_table(query, expected):
    assert [key for key, _ in BM25Index(DOCS).rank(query)] == expected


def test_score_matches_the_formula():
    index = BM25Index([("a", "alpha beta"), ("b", "gamma")])
    # one document of two has "alpha": idf = ln(1 + (2 - 1 + .5) / (1 + .5)) = ln 2; tf 1, length 2, avg 1.5
    norm = 1 - 0.75 + 0.75 * 2 / 1.5
    expected = math.log(2) * 1 * 2.2 / (1 + 1.2 * norm)
    [(key, score)] = index.rank("alpha")
    assert key == "a" and score == pytest.approx(expected)


def test_allowed_keys_filter_the_ranking():
    assert [k for k, _ in BM25Index(DOCS).rank("tabs", allowed={1, 2})] == [1]
