"""FTS5's query syntax read in Python and written as a PostgreSQL `tsquery`, so a query given as search
syntax (`recall` with syntax=true) finds the same messages on both stores.

On SQLite the query goes to FTS5 as written. On PostgreSQL `to_tsquery` reads it as this module
writes it (app/storage/pg_fts.py's word index), after the same parse FTS5 makes (its grammar,
fts5parse.y, and tokenizer, fts5_expr.c):

- a phrase is a bareword (letters, digits, `_`, any non-ASCII character) or a "quoted string" (`""`
  is a quote), cut into words as unicode61 cuts text; `+` joins phrases; `*` after one makes its
  last word a prefix; `NEAR(a b, N)` finds phrases at most N words apart (10 by default);
- `AND`, `OR`, `NOT` (upper case only; `a NOT b` is a without b) and phrases side by side (an
  implicit AND, binding tightest), then NOT, AND, OR; parentheses group; a column filter
  (`content:`, `{content}:`, `-content:`) names the one column the index has;
- a phrase with no word in it matches nothing, and is left out of a row of phrases or a NEAR group,
  as FTS5 does; a query FTS5 rejects is rejected here with FTS5's words (`QueryError`).

A NEAR group becomes every placement of its phrases FTS5 accepts, listed (at most MAX_WAYS). What
`to_tsquery` cannot say is refused on PostgreSQL with a sentence (`Unsupported`): `^` (a phrase at the
start of the text), and a NEAR group with more placements than MAX_WAYS (many phrases, far apart).
"""

from __future__ import annotations

import itertools
import math
import re
import sqlite3
from dataclasses import dataclass

_SPACE = " \t\n\r"
_PUNCTUATION = "(){}:,+*-^"
_WORD = re.compile(r"[^\W_]+")  # unicode61's words: runs of letters and digits
COLUMN = "content"  # the index's one column (app/storage/fts.py)
NEAR_DEFAULT = 10
MAX_WAYS = 500  # a NEAR group's placements listed in one tsquery, at most


class QueryError(sqlite3.OperationalError):
    """A query FTS5 rejects, in FTS5's words (a sqlite3 error, as FTS5's own is, for one `except`)."""


class Unsupported(QueryError):
    """A query FTS5 takes that a `tsquery` cannot express."""


def _bare(char: str) -> bool:
    return ord(char) >= 0x80 or char.isascii() and (char.isalnum() or char == "_") or char == "\x1a"


@dataclass(frozen=True)
class _Token:
    kind: str  # "word" (bareword), "string" (quoted), an operator (AND, OR, NOT) or the punctuation itself
    text: str  # the word or the string's content
    raw: str  # as written (FTS5's error messages quote it)


def _tokens(query: str) -> list[_Token]:
    out, i = [], 0
    while i < len(query):
        char = query[i]
        if char in _SPACE:
            i += 1
        elif char in _PUNCTUATION:
            out.append(_Token(char, char, char))
            i += 1
        elif char == '"':
            end, text = i + 1, []
            while True:
                if end >= len(query):
                    raise QueryError("unterminated string")
                if query[end] == '"':
                    if query[end + 1:end + 2] != '"':
                        break
                    end += 1
                text.append(query[end])
                end += 1
            out.append(_Token("string", "".join(text), query[i:end + 1]))
            i = end + 1
        elif _bare(char):
            end = i
            while end < len(query) and _bare(query[end]):
                end += 1
            word = query[i:end]
            out.append(_Token(word if word in ("AND", "OR", "NOT") else "word", word, word))
            i = end
        else:
            raise QueryError(f'fts5: syntax error near "{char}"')
    return out


# The parse's result, as tsquery text; None is a part that matches nothing, EMPTY a phrase with no word
# (it matches nothing either, but FTS5 leaves it out of phrases side by side and of a NEAR group).
Query = str | None
EMPTY = ""


class _Parser:
    def __init__(self, query: str) -> None:
        self.tokens = _tokens(query)
        self.at = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.at + ahead
        return self.tokens[index].kind if index < len(self.tokens) else None

    def take(self, *kinds: str) -> _Token:
        if self.peek() not in kinds:
            raw = self.tokens[self.at].raw if self.at < len(self.tokens) else ""
            raise QueryError(f'fts5: syntax error near "{raw}"')
        self.at += 1
        return self.tokens[self.at - 1]

    def query(self) -> Query:
        result = self.either()
        if self.peek() is not None:
            self.take()  # raises: something is left over
        return result

    def either(self) -> Query:  # OR, the loosest
        parts = [self.both()]
        while self.peek() == "OR":
            self.take("OR")
            parts.append(self.both())
        kept = [p for p in parts if p]
        return None if not kept else kept[0] if len(kept) == 1 else "(" + " | ".join(kept) + ")"

    def both(self) -> Query:  # AND
        parts = [self.without()]
        while self.peek() == "AND":
            self.take("AND")
            parts.append(self.without())
        if not all(parts):
            return None
        return parts[0] if len(parts) == 1 else "(" + " & ".join(parts) + ")"  # type: ignore[arg-type]

    def without(self) -> Query:  # a NOT b: a without b
        result = self.primary()
        while self.peek() == "NOT":
            self.take("NOT")
            excluded = self.primary()
            result = (f"({result} & !{excluded})" if excluded else result) if result else None
        return result

    def primary(self) -> Query:
        """A group in parentheses (a column filter may precede it), or phrases side by side (an
        implicit AND, each with its own filter), of which FTS5 leaves the empty ones out."""
        parts: list[Query] = []
        while True:
            keep = self.columns() if self.starts_columns() else True
            if not parts and self.peek() == "(":
                result = self.group()
                return result if keep else None
            part = self.nearset()
            parts.append(part if keep or part == EMPTY else None)
            if self.peek() not in ("word", "string", "^", "-", "{"):
                break
        kept = [p for p in parts if p != EMPTY]
        if not kept:
            return EMPTY
        if None in kept:
            return None
        return kept[0] if len(kept) == 1 else "(" + " & ".join(kept) + ")"  # type: ignore[arg-type]

    def group(self) -> Query:
        self.take("(")
        result = self.either()
        self.take(")")
        return result

    def starts_columns(self) -> bool:
        return self.peek() in ("-", "{") or self.peek() in ("word", "string") and self.peek(1) == ":"

    def columns(self) -> bool:
        """A column filter and its colon; whether it keeps the one column there is."""
        negated = self.peek() == "-"
        if negated:
            self.take("-")
        if self.peek() == "{":
            self.take("{")
            names = [self.take("word", "string").text]
            while self.peek() != "}":
                names.append(self.take("word", "string").text)
            self.take("}")
        else:
            names = [self.take("word", "string").text]
        for name in names:
            if name.lower() != COLUMN:
                raise QueryError(f"no such column: {name}")
        self.take(":")
        return not negated

    def nearset(self) -> Query:
        if self.peek() == "^":
            self.take("^")
            self.phrase()
            raise Unsupported("^ (a phrase at the start of a message) is not available on a PostgreSQL store; "
                              "search without it")
        if self.peek(1) == "(" and self.peek() in ("word", "string"):
            return self.near()
        return self.phrase()

    def near(self) -> Query:
        name = self.take("word", "string")
        if name.raw != "NEAR":
            raise QueryError(f'fts5: syntax error near "{name.raw}"')
        self.take("(")
        phrases = [self.words()]
        while self.peek() in ("word", "string"):
            phrases.append(self.words())
        distance = NEAR_DEFAULT
        if self.peek() == ",":
            self.take(",")
            number = self.take("word", "string")
            if not number.raw.isascii() or not number.raw.isdigit():
                raise QueryError(f'expected integer, got "{number.raw}"')
            distance = int(number.raw)
        self.take(")")
        kept = [p for p in phrases if p]  # FTS5 leaves empty phrases out of the group
        if len(kept) <= 1:
            return _text(kept[0]) if kept else EMPTY
        return _near(kept, distance)

    def phrase(self) -> Query:
        words = self.words()
        return _text(words) if words else EMPTY

    def words(self) -> list[tuple[str, bool]]:
        """A phrase: strings joined by `+`, as (word, whether it is a prefix). As in FTS5, each string's
        `*` (or its absence) sets whether the last word so far is a prefix, even for a string with no
        word (`migr* + ""` is no prefix)."""
        words: list[tuple[str, bool]] = []
        while True:
            words += [(w.lower(), False) for w in _WORD.findall(self.take("word", "string").text)]
            star = self.peek() == "*"
            if star:
                self.take("*")
            if words:
                words[-1] = (words[-1][0], star)
            if self.peek() != "+":
                return words
            self.take("+")


def _text(words: list[tuple[str, bool]]) -> str:
    quoted = [f"'{word}'" + (":*" if prefix else "") for word, prefix in words]
    return quoted[0] if len(quoted) == 1 else "(" + " <-> ".join(quoted) + ")"


def _same_place(one: tuple[str, bool], other: tuple[str, bool]) -> tuple[str, bool] | None:
    """The one word (or prefix) that matches both `one` and `other` at one position, None when none can."""
    if not one[1] and not other[1]:
        return one if one[0] == other[0] else None
    if one[1] and other[1]:
        shorter, longer = sorted((one, other), key=lambda w: len(w[0]))
        return longer if longer[0].startswith(shorter[0]) else None
    exact, prefix = (other, one) if one[1] else (one, other)
    return exact if exact[0].startswith(prefix[0]) else None


def _placed(phrases: list[list[tuple[str, bool]]], starts: list[int]) -> str | None:
    """The tsquery for `phrases` starting at positions `starts` relative to each other, words that
    share a position merged into one; None when no text can hold them so. Between two words the
    operator is their distance (`a <3> b`: b three positions after a), chained from the first."""
    grid: dict[int, tuple[str, bool]] = {}
    for words, start in zip(phrases, starts):
        for offset, word in enumerate(words):
            here = grid.get(start + offset)
            both = word if here is None else _same_place(here, word)
            if both is None:
                return None
            grid[start + offset] = both
    positions = sorted(grid)
    text = _text([grid[positions[0]]])
    for before, at in zip(positions, positions[1:]):
        text = f"({text} <{at - before}> {_text([grid[at]])})"
    return text


def _near(phrases: list[list[tuple[str, bool]]], distance: int) -> str | None:
    """FTS5's NEAR: with the phrase that starts last at M, every other phrase starts at most its length
    plus `distance` positions before M (fts5ExprNearIsMatch). Every such placement, as a tsquery."""
    ways: dict[str, None] = {}
    for last in range(len(phrases)):
        others = [i for i in range(len(phrases)) if i != last]
        spans = [range(len(phrases[i]) + distance + 1) for i in others]
        if len(phrases) * math.prod(len(span) for span in spans) > MAX_WAYS:
            raise Unsupported(f"NEAR over {len(phrases)} phrases {distance} words apart is not available on a "
                              f"PostgreSQL store (more placements than one query lists, {MAX_WAYS}); use fewer "
                              "phrases or a smaller distance")
        for backs in itertools.product(*spans):
            starts = [0] * len(phrases)
            for i, back in zip(others, backs):
                starts[i] = -back
            way = _placed(phrases, starts)
            if way is not None:
                ways[way] = None
    return "(" + " | ".join(ways) + ")" if ways else None


def tsquery(query: str) -> str | None:
    """The `to_tsquery('simple', …)` text that finds what FTS5 finds for `query`, None when it can match
    nothing; QueryError where FTS5 rejects the query, Unsupported (a QueryError) where no tsquery can say it."""
    if query.startswith("*"):  # FTS5 reads a leading `*` as one of its special commands
        raise QueryError(f"unknown special query: {query[1:].split(' ')[0]}")
    return _Parser(query).query() or None
