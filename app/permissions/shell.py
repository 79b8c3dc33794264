"""A bash command line read as bash reads it: the simple commands of a compound line, word by word.

Rules and the risk assessor work on these, never on the raw string, so `git status && rm -rf x`
is two commands, `$(...)` and backticks are commands of their own, and a quoted `*` is a plain
character. What this reader does not understand (here-documents, `if`/`for`/`case` blocks, an
unclosed quote) raises `Unparseable`: the caller must then ask the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

OPERATOR_CHARS = set(";&|()<>")
BLANKS = " \t"
KEYWORDS = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
            "function", "select", "coproc"}


class Unparseable(ValueError):
    """The command line uses something this reader cannot follow; the message says what."""


@dataclass(frozen=True)
class Part:
    """A run of characters of one word, and whether it was quoted (or escaped) in the source."""

    text: str
    quoted: bool
    dynamic: bool = False  # holds a $-expansion or substitution: its value is only known at run time


@dataclass(frozen=True)
class Word:
    """One shell word: its value after quote removal, and its parts (to tell quoted `*` from bare)."""

    parts: tuple[Part, ...]

    @cached_property
    def text(self) -> str:
        return "".join(p.text for p in self.parts)

    @property
    def has_expansion(self) -> bool:
        """An unquoted `$` or backtick: the value is only known when the command runs."""
        return any(p.dynamic for p in self.parts)

    @classmethod
    def plain(cls, text: str) -> Word:
        return cls((Part(text, True),))


@dataclass
class SimpleCommand:
    """One command: its words (wrappers still in), `A=b` assignments before it, redirections."""

    words: list[Word] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    redirects: list[tuple[str, Word]] = field(default_factory=list)  # (operator, target)

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]


class _Reader:
    """Reads one command line (or the inside of `$(...)`) into a flat list of simple commands."""

    def __init__(self, source: str, depth: int = 0) -> None:
        if depth > 20:
            raise Unparseable("command substitutions are nested too deeply")
        self.s = source
        self.i = 0
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self._expansions = 0  # how many $-expansions were read (a double-quoted word may hold some)

    # -- the list level ------------------------------------------------------------------
    def read_list(self, closer: str | None = None) -> list[SimpleCommand]:
        """Commands up to the end, or up to the unquoted `closer` (`)` of a subshell)."""
        current = SimpleCommand()
        while True:
            self._skip_blanks()
            if self.i >= len(self.s):
                if closer:
                    raise Unparseable(f"'{closer}' is missing")
                break
            ch = self.s[self.i]
            if closer and ch == closer:
                self.i += 1
                break
            if ch == "#" :
                self._skip_comment()
                continue
            if ch == "\n" or ch in ";&|":
                self._end(current)
                current = SimpleCommand()
                self._read_separator()
                continue
            if ch == "(":
                if current.words or current.assignments:
                    raise Unparseable("'(' in the middle of a command")
                if self.s.startswith("((", self.i):
                    raise Unparseable("arithmetic commands (( … )) are not read")
                self.i += 1
                self.read_list(")")
                continue
            if ch == ")":
                raise Unparseable("')' without its '('")
            if ch in "<>" or (ch.isdigit() and self._redirect_after_digits()):
                self._read_redirect(current)
                continue
            word = self._read_word()
            if not current.words and not current.redirects and _is_assignment(word):
                current.assignments.append(word.text)
            elif not current.words and word.text in ("{", "}", "!") and len(word.parts) == 1 \
                    and not word.parts[0].quoted:
                continue  # a group or a negation: its commands are read as they come
            elif not current.words and word.text in KEYWORDS and not word.parts[0].quoted:
                raise Unparseable(f"'{word.text}' blocks are not read")
            else:
                current.words.append(word)
        self._end(current)
        return self.commands

    def _end(self, command: SimpleCommand) -> None:
        if command.words or command.assignments or command.redirects:
            self.commands.append(command)

    def _read_separator(self) -> None:
        s, i = self.s, self.i
        for op in ("&&", "||", ";;", "|&", "&>", "\n", ";", "|", "&"):
            if s.startswith(op, i):
                if op == ";;":
                    raise Unparseable("';;' outside a case block")
                if op == "&>":
                    return  # a redirection, read by the caller
                self.i += len(op)
                return

    def _skip_blanks(self) -> None:
        while self.i < len(self.s) and (self.s[self.i] in BLANKS or self.s.startswith("\\\n", self.i)):
            self.i += 2 if self.s[self.i] == "\\" else 1

    def _skip_comment(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end

    # -- redirections --------------------------------------------------------------------
    def _redirect_after_digits(self) -> bool:
        j = self.i
        while j < len(self.s) and self.s[j].isdigit():
            j += 1
        return j < len(self.s) and self.s[j] in "<>"

    def _read_redirect(self, command: SimpleCommand) -> None:
        start = self.i
        while self.s[self.i].isdigit():
            self.i += 1
        s = self.s
        if s.startswith("<<<", self.i):
            self.i += 3
            op = "<<<"
        elif s.startswith("<<", self.i):
            raise Unparseable("here-documents (<<) are not read")
        elif s.startswith("<(", self.i) or s.startswith(">(", self.i):
            self.i += 2
            self.commands.extend(_Reader(self._balanced(")"), self.depth + 1).read_list())
            return
        else:
            for op in ("&>>", "&>", ">>", ">&", "<&", ">|", "<>", ">", "<"):
                if s.startswith(op, self.i):
                    self.i += len(op)
                    break
        self._skip_blanks()
        if op in (">&", "<&") and self.i < len(s) and (s[self.i].isdigit() or s[self.i] == "-"):
            while self.i < len(s) and (s[self.i].isdigit() or s[self.i] == "-"):
                self.i += 1
            return  # 2>&1: a descriptor, not a file
        if self.i >= len(s) or s[self.i] in OPERATOR_CHARS or s[self.i] == "\n":
            raise Unparseable(f"redirection '{s[start:self.i].strip()}' has no target")
        command.redirects.append((op, self._read_word()))

    # -- words ---------------------------------------------------------------------------
    def _read_word(self) -> Word:
        parts: list[Part] = []
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch in BLANKS or ch == "\n" or ch in OPERATOR_CHARS:
                break
            if ch == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise Unparseable("a single quote is not closed")
                parts.append(Part(s[self.i + 1:end], True))
                self.i = end + 1
            elif ch == '"':
                before = self._expansions
                parts.append(Part(self._double_quoted(), True, dynamic=self._expansions > before))
            elif ch == "\\":
                if self.i + 1 >= len(s):
                    raise Unparseable("the line ends in a backslash")
                if s[self.i + 1] != "\n":
                    parts.append(Part(s[self.i + 1], True))
                self.i += 2
            elif ch == "$" or ch == "`":
                parts.append(Part(self._expansion(), False, dynamic=True))
            else:
                start = self.i
                while self.i < len(s) and s[self.i] not in BLANKS + "\n'\"\\$`" and s[self.i] not in OPERATOR_CHARS:
                    self.i += 1
                parts.append(Part(s[start:self.i], False))
        return Word(tuple(parts))

    def _double_quoted(self) -> str:
        s = self.s
        self.i += 1
        out: list[str] = []
        while True:
            if self.i >= len(s):
                raise Unparseable("a double quote is not closed")
            ch = s[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                out.append(s[self.i + 1])
                self.i += 2
            elif ch == "$" or ch == "`":
                out.append(self._expansion())
            else:
                out.append(ch)
                self.i += 1

    def _expansion(self) -> str:
        """`$(...)`, backticks (their commands are read too), `$((...))`, `${...}`, `$NAME`."""
        s, start = self.s, self.i
        self._expansions += 1
        if s[self.i] == "`":
            end = self.i + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise Unparseable("a backtick is not closed")
            inner = s[self.i + 1:end].replace("\\`", "`")
            self.commands.extend(_Reader(inner, self.depth + 1).read_list())
            self.i = end + 1
        elif s.startswith("$((", self.i):
            self.i += 3
            self._balanced(")")
            if not s.startswith(")", self.i):
                raise Unparseable("'$((' is not closed by '))'")
            self.i += 1
        elif s.startswith("$(", self.i):
            self.i += 2
            inner = _Reader(s, self.depth + 1)
            inner.i = self.i
            self.commands.extend(inner.read_list(")"))
            self.i = inner.i
        elif s.startswith("${", self.i):
            end = s.find("}", self.i)
            if end < 0:
                raise Unparseable("'${' is not closed")
            self.i = end + 1
        else:
            self.i += 1
            while self.i < len(s) and (s[self.i].isalnum() or s[self.i] == "_"):
                self.i += 1
            if self.i == start + 1 and self.i < len(s) and s[self.i] in "?$!#@*-0123456789":
                self.i += 1
        return s[start:self.i]

    def _balanced(self, closer: str) -> str:
        """The text up to the `closer` that balances the opener just read (quotes respected)."""
        s, depth, start = self.s, 1, self.i
        opener = "(" if closer == ")" else "{"
        while self.i < len(s):
            ch = s[self.i]
            if ch in "'\"":
                end = s.find(ch, self.i + 1)
                if end < 0:
                    raise Unparseable("a quote is not closed")
                self.i = end + 1
                continue
            if ch == opener:
                depth += 1
            elif ch == closer:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return s[start:self.i - 1]
            self.i += 1
        raise Unparseable(f"'{closer}' is missing")


def _is_assignment(word: Word) -> bool:
    first = word.parts[0] if word.parts else None
    if first is None or first.quoted or "=" not in first.text:
        return False
    name = first.text.split("=", 1)[0]
    return bool(name) and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name)


def parse(command: str) -> list[SimpleCommand]:
    """Every simple command of `command`, in order (substitutions first); raises Unparseable."""
    if "\x00" in command:
        raise Unparseable("the command contains a NUL character")
    return _Reader(command).read_list()
