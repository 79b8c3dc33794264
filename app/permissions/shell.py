"""A bash command line read as bash reads it (tree-sitter's bash grammar): every command it would run.

Rules, risk and the gate work on the simple commands found here, never on the raw string: the
commands of lists and pipelines, of `$(…)`, backticks, `${x:-$(…)}` and array indices, `$((…))`,
`<(…)`/`>(…)`, groups, subshells, `if`/`for`/`while`/`case` bodies, function bodies and
unquoted here-documents. Quoting is removed as bash removes it (`$'…'` escapes included), so a
quoted `*` is a plain character and `r\\m` is `rm`.

Each `SimpleCommand` says in `opaque` why an allow rule cannot vouch for it: a word whose value
comes from running code (`$(…)`, `${…}` with an operator or index, arithmetic, process
substitution), a command name only known at run time, a function definition, `coproc`, `[[ … ]]`,
or an assignment that changes how a program behaves (`GIT_*`, `LD_*`, `PATH`, `PAGER`, …; see
`env_reason`). Deny and ask rules and risk still look at every command.

What the grammar cannot read (its ERROR and MISSING nodes, `<>` among them), a line over `MAX_BYTES`, nesting
past `MAX_DEPTH` or a reading that runs past `DEADLINE` raise `Unparseable`; the caller asks.
tree-sitter is imported on the first line read, never at start-up.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app.permissions.shell_words import RESERVED, ansi_c, env_reason, unescape_double
from app.permissions.shell_words import unescape_unquoted as _unescape_pieces

MAX_BYTES = 100_000  # a here-document writing a big file still fits
MAX_DEPTH = 120  # nested nodes of the tree (each `$(` costs about three)
DEADLINE = 1.0  # seconds for one line, parse and walk together
DUP_OPERATORS = {">&", "<&"}
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`|\$\[)")  # `a[$(cmd)]`, even quoted: some builtins evaluate it
WRITE_OPERATORS = (">", ">>", ">|", "&>", "&>>", "<>", ">&")


class Unparseable(ValueError):
    """The command line uses something this reader cannot follow; the message says what and where."""


@dataclass(frozen=True)
class Part:
    """A run of characters of one word, and whether it was quoted (or escaped) in the source."""

    text: str
    quoted: bool
    dynamic: bool = False  # holds a $-expansion or substitution: its value is only known at run time


def unescape_unquoted(text: str) -> list[Part]:
    """An unquoted run as parts: `\\x` is a quoted `x`, a backslash-newline disappears."""
    return [Part(piece, quoted) for piece, quoted in _unescape_pieces(text)]


@dataclass(frozen=True)
class Word:
    """One shell word: its value after quote removal, and its parts (to tell quoted `*` from bare)."""

    parts: tuple[Part, ...]

    @cached_property
    def text(self) -> str:
        return "".join(p.text for p in self.parts)

    @property
    def has_expansion(self) -> bool:
        """A `$` or backtick expansion: the value is only known when the command runs."""
        return any(p.dynamic for p in self.parts)

    @cached_property
    def unknown(self) -> str | None:
        """Why this word's value (as a path) is only known at run time, or None when it is what it says."""
        if self.has_expansion:
            return f"`{self.text}` holds an expansion"
        bare = "".join(p.text for p in self.parts if not p.quoted)
        if self.parts and not self.parts[0].quoted and self.parts[0].text.startswith("~"):
            return f"`{self.text}` starts with ~ (a home folder or ~+/~- directory)"
        if any(c in bare for c in "*?["):
            return f"`{self.text}` is a glob pattern"
        if "{" in bare and "}" in bare and ("," in bare or ".." in bare):
            return f"`{self.text}` is a brace expansion"
        return None

    @classmethod
    def plain(cls, text: str) -> Word:
        return cls((Part(text, True),))


@dataclass
class SimpleCommand:
    """One command: its words (wrappers still in), `A=b` assignments before it, redirections, and
    `opaque`: the reasons an allow rule cannot vouch for it (empty when every part is plain)."""

    words: list[Word] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    redirects: list[tuple[str, Word]] = field(default_factory=list)  # (operator, target); 2>&1 is not kept
    opaque: list[str] = field(default_factory=list)
    text: str = ""  # its source, for messages

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]


_LOCAL = threading.local()


def _parser() -> Any:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        import tree_sitter
        import tree_sitter_bash

        parser = _LOCAL.parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return parser


def parse(command: str) -> list[SimpleCommand]:
    """Every simple command of `command`, in order (substitutions before the command holding them);
    raises Unparseable."""
    if "\x00" in command:
        raise Unparseable("the command contains a NUL character")
    try:
        data = command.encode("utf-8")
    except UnicodeEncodeError:
        raise Unparseable("the command contains characters that are not text") from None
    if len(data) > MAX_BYTES:
        raise Unparseable(f"the command is too long to read ({len(data)} bytes, the limit is {MAX_BYTES})")
    deadline = time.monotonic() + DEADLINE
    try:
        tree = _parser().parse(lambda offset, _point: data[offset:offset + 2048],
                               progress_callback=lambda _offset, _error: time.monotonic() > deadline)
    except ValueError:
        raise Unparseable("the command is too long to read (reading it took too long)") from None
    return _Walker(data, deadline).program(tree.root_node)


class _Walker:
    """Walks the syntax tree once, collecting simple commands (and why each is opaque)."""

    def __init__(self, data: bytes, deadline: float) -> None:
        self.data = data
        self.deadline = deadline
        self.commands: list[SimpleCommand] = []
        self.visited = 0

    def program(self, root: Any) -> list[SimpleCommand]:
        if root.has_error:
            self._check_errors(root)
        if b"\\\n" in self.data:
            self._check_continuations(root)
        if any(c in self.data for c in b"\r\v\f"):
            self._check_blanks(root)
        self.statement(root, 0)
        return self.commands

    # -- errors --------------------------------------------------------------------------
    def _check_errors(self, root: Any) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_missing:
                raise Unparseable(f"{self._where(node)}: `{node.type}` is missing")
            if node.type == "ERROR" and b"<>" in self.data[max(0, node.start_byte - 1):node.end_byte + 1]:
                raise Unparseable(f"{self._where(node)}: `<>` (open for reading and writing) is not read")
            if node.type == "ERROR":
                raise Unparseable(f"{self._where(node)}: bash syntax this reader cannot follow near "
                                  f"`{self._snippet(node)}`")
            if node.has_error:
                stack.extend(reversed(node.children))

    def _check_continuations(self, root: Any) -> None:
        """bash joins `r\\<newline>m` into `rm`; the grammar reads two words there: ask instead."""
        data, at = self.data, self.data.find(b"\\\n")
        while at >= 0:
            node = root.descendant_for_byte_range(at, at + 2)
            inert = node is not None and node.type in ("raw_string", "string_content", "heredoc_body",
                                                         "heredoc_content", "comment", "ansi_c_string", "string")
            joins = at > 0 and data[at - 1:at] not in b" \t\n" and data[at + 2:at + 3] not in b" \t\n"
            if joins and not inert:
                raise Unparseable(f"{self._where(node or root)}: a backslash-newline that joins two pieces of text is not read")
            at = data.find(b"\\\n", at + 2)

    def _check_blanks(self, root: Any) -> None:
        """bash splits words at spaces and tabs only; the grammar also at CR, VT and FF, so `a<CR>#; rm x`
        would hide `rm x` in a comment bash never sees. Outside quotes they are not read."""
        for at, byte in enumerate(self.data):
            if byte in b"\r\v\f":
                node = root.descendant_for_byte_range(at, at + 1)
                if node is None or node.type not in ("raw_string", "string_content", "heredoc_body",
                                                     "heredoc_content", "ansi_c_string", "string"):
                    raise Unparseable(f"{self._where(node or root)}: a carriage return, vertical tab or form feed "
                                      "outside quotes is not read")

    def _where(self, node: Any) -> str:
        row, column = node.start_point
        line_start = self.data.rfind(b"\n", 0, node.start_byte) + 1
        return f"line {row + 1}, column {len(self.data[line_start:node.start_byte].decode(errors='replace')) + 1}"

    def _snippet(self, node: Any) -> str:
        text = self.text(node) or self.data[node.start_byte:node.start_byte + 20].decode(errors="replace")
        return text if len(text) <= 40 else text[:40] + "…"

    def text(self, node: Any) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def _tick(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise Unparseable("the command is nested too deeply to read")
        self.visited += 1
        if self.visited % 256 == 0 and time.monotonic() > self.deadline:
            raise Unparseable("the command is too long to read (reading it took too long)")

    # -- statements ----------------------------------------------------------------------
    def statement(self, node: Any, depth: int) -> None:
        """Any node in a place where commands run: collect the commands inside it."""
        self._tick(depth)
        kind = node.type
        if kind == "command":
            self.command(node, depth)
        elif kind == "redirected_statement":
            self.redirected(node, depth)
        elif kind in ("variable_assignment", "variable_assignments"):
            command = SimpleCommand(text=self.text(node))
            for child in ([node] if kind == "variable_assignment" else node.named_children):
                self.assignment(child, command, depth + 1)
            self.commands.append(command)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node, depth)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            self.marker(node, f"defines the function `{self.text(name) if name else '?'}`, which runs later")
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body, depth + 1)
        elif kind == "test_command":
            self.test(node, depth)
        elif kind in ("c_style_for_statement", "arithmetic_expansion", "parenthesized_expression") or \
                kind == "compound_statement" and node.child_count and node.children[0].type == "((":
            self.marker(node, "arithmetic evaluation can run code through array indices")
            self.children(node, depth)
        elif kind in ("comment", "heredoc_start", "heredoc_end", "heredoc_content"):
            return
        elif kind in ("word", "number", "string", "raw_string", "concatenation", "simple_expansion", "expansion",
                      "ansi_c_string", "translated_string", "command_substitution", "process_substitution",
                      "extglob_pattern", "brace_expression", "array", "heredoc_body", "file_redirect",
                      "herestring_redirect", "heredoc_redirect"):
            owner = SimpleCommand(text=self.text(node))
            self.loose(node, owner, depth)
        else:  # program, list, pipeline, subshell, groups, if/while/for/case and their parts, `!`
            self.children(node, depth)

    def children(self, node: Any, depth: int) -> None:
        for child in node.named_children:
            self.statement(child, depth + 1)

    def loose(self, node: Any, owner: SimpleCommand, depth: int) -> None:
        """A word or redirect outside a command (a `for` list, a `case` value, a group's redirect):
        its substitutions are commands; a marker carries what makes it opaque."""
        if node.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            self.redirect(node, owner, depth)
        else:
            self.word(node, owner, depth)
        if owner.opaque or owner.redirects:
            self.commands.append(owner)

    def marker(self, node: Any, reason: str) -> None:
        """A command-less entry that no allow rule matches, saying why the line must be asked about."""
        self.commands.append(SimpleCommand(opaque=[reason], text=self.text(node)))

    def command(self, node: Any, depth: int) -> SimpleCommand:
        command = SimpleCommand(text=self.text(node))
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            kind = child.type
            if kind == "variable_assignment":
                self.assignment(child, command, depth + 1)
            elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                self.redirect(child, command, depth + 1)
            elif kind == "command_name":
                word = self.word(child.named_children[0] if child.named_children else child, command, depth + 1)
                command.words.append(word)
                if word.has_expansion or word.unknown:
                    command.opaque.append(f"the command's name `{self.text(child)}` is only known when it runs "
                                          "(an expansion, a glob, braces or ~)")
                elif word.text == "coproc" and not word.parts[0].quoted:
                    command.opaque.append("`coproc` runs a command in the background")
                elif word.text in RESERVED and not word.parts[0].quoted:
                    raise Unparseable(f"{self._where(child)}: `{word.text}` is bash syntax this reader could not "
                                      "follow here")
            elif field_name == "argument" or child.is_named and kind != "comment":
                command.words.append(self.word(child, command, depth + 1))
            elif not child.is_named and kind == "$":
                command.words.append(Word((Part("$", False, True),)))
                command.opaque.append("a `$` before a quote ($\"…\") is translated at run time")
        for word in command.words[1:]:
            if _SUBSCRIPT_CODE.search(word.text):
                command.opaque.append(f"`{_short(word.text)}` is an array subscript bash may evaluate "
                                      "(test -v, printf -v, read, unset…), running what it holds")
                break
        self.commands.append(command)
        return command

    def redirected(self, node: Any, depth: int) -> None:
        """`body > f`: the redirections belong to every command of the body (a group's, a loop's)."""
        body = node.child_by_field_name("body")
        start = len(self.commands)
        if body is not None and body.type == "command":
            target = self.command(body, depth + 1)
            owners = [target]
        else:
            if body is not None:
                self.statement(body, depth + 1)
            owners = [c for c in self.commands[start:] if c.words] or []
            if not owners:
                owners = [SimpleCommand(text=self.text(node))]
                self.commands.append(owners[0])
        holder = SimpleCommand()
        for child in node.children:
            if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                self.redirect(child, holder, depth + 1)
        for owner in owners:
            owner.redirects.extend(holder.redirects)
            owner.opaque.extend(holder.opaque)
        # commands found inside the redirections (`> $(x)`, a here-document's pipeline) come after

    def assignment(self, node: Any, command: SimpleCommand, depth: int) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self.text(name_node) if name_node is not None else ""
        value = self.word(value_node, command, depth + 1) if value_node is not None else Word(())
        if name_node is not None and name_node.type == "subscript":
            command.opaque.append(f"assigns the array element `{name}`, whose index is evaluated")
            self.word(name_node, command, depth + 1)
        reason = env_reason(name)
        if reason:
            command.opaque.append(f"sets {name}, which {reason}")
        operator = "+=" if b"+=" in self.data[node.start_byte:(value_node or node).start_byte] else "="
        command.assignments.append(f"{name}{operator}{value.text}")

    def declaration(self, node: Any, depth: int) -> None:
        """`export A=b`, `declare -i x`, `local`, `readonly`, `unset`: a command whose words are kept."""
        command = SimpleCommand(text=self.text(node))
        keyword = node.children[0]
        command.words.append(Word((Part(self.text(keyword), False),)))
        for child in node.named_children:
            if child.type == "variable_assignment":
                probe = SimpleCommand()
                self.assignment(child, probe, depth + 1)
                command.opaque.extend(probe.opaque)
                command.words.append(Word((Part(probe.assignments[0], True),)))
            else:
                command.words.append(self.word(child, command, depth + 1))
        if command.words[0].text != "unset":
            command.opaque.append(f"`{command.words[0].text}` changes variables for the rest of the line")
        self.commands.append(command)

    def test(self, node: Any, depth: int) -> None:
        """`[ … ]` is the `test` command; `[[ … ]]` evaluates arithmetic and is asked about."""
        command = SimpleCommand(text=self.text(node))
        opener = self.text(node.children[0]) if node.children else "["
        command.words.append(Word((Part(opener, False),)))
        self._leaves(node, command, depth + 1)
        if node.children:
            command.words.append(Word((Part(self.text(node.children[-1]), False),)))
        if opener == "[[":
            command.opaque.append("`[[ … ]]` can evaluate arithmetic, which can run code")
        self.commands.append(command)

    def _leaves(self, node: Any, command: SimpleCommand, depth: int) -> None:
        self._tick(depth)
        for child in node.children[1:-1] if node.type == "test_command" else node.children:
            if child.type in ("binary_expression", "unary_expression", "parenthesized_expression",
                              "ternary_expression", "postfix_expression"):
                self._leaves(child, command, depth + 1)
            elif child.is_named:
                command.words.append(self.word(child, command, depth + 1))
            else:
                command.words.append(Word((Part(self.text(child), False),)))

    # -- redirections --------------------------------------------------------------------
    def redirect(self, node: Any, command: SimpleCommand, depth: int) -> None:
        kind = node.type
        if kind == "heredoc_redirect":
            start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
            quoted = start is not None and any(c in self.text(start) for c in "'\"\\")
            for child in node.named_children:
                if child.type == "heredoc_body":
                    holder = SimpleCommand()
                    self.word(child, holder, depth + 1)
                    if not quoted:  # bash runs its backticks; the grammar leaves them as text
                        self._scan_backticks(self.text(child), holder, depth + 1)
                    command.opaque.extend(f"the here-document: {r}" for r in holder.opaque)
                elif child.type not in ("heredoc_start", "heredoc_end"):
                    self.statement(child, depth + 1)  # `cat <<EOF | grep x > out`: the rest of the pipeline
            return
        if kind == "herestring_redirect":
            target = [c for c in node.named_children]
            if target:
                command.redirects.append(("<<<", self.word(target[-1], command, depth + 1)))
            return
        operator = ""
        destinations = []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            if field_name == "destination":
                destinations.append(child)
            elif not child.is_named:
                operator += child.type
        if operator in (">&-", "<&-"):
            return
        if operator in DUP_OPERATORS and destinations and all(d.type == "number" for d in destinations):
            return  # 2>&1, <&3: a descriptor, not a file
        for destination in destinations:
            target = self.word(destination, command, depth + 1)
            command.redirects.append((operator, target))
            if target.text.startswith(("/dev/tcp/", "/dev/udp/")):
                command.opaque.append(f"`{operator}{target.text}` opens a network connection (bash's /dev/tcp)")

    # -- words ---------------------------------------------------------------------------
    def word(self, node: Any, command: SimpleCommand, depth: int, quoted: bool = False) -> Word:
        """The word `node` as bash makes it; commands inside it are collected, and what makes its value
        come from running code is added to `command.opaque`."""
        parts: list[Part] = []
        self._parts(node, command, depth, quoted, parts)
        return Word(tuple(parts))

    def _parts(self, node: Any, command: SimpleCommand, depth: int, quoted: bool, out: list[Part]) -> None:
        self._tick(depth)
        kind = node.type
        text = self.text(node)
        if kind in ("word", "number", "extglob_pattern", "regex", "test_operator", "variable_name",
                    "special_variable_name", "heredoc_start", "file_descriptor"):
            out.extend(unescape_unquoted(text) if not quoted else [Part(text, True)])
            if "`" in text:
                self._scan_backticks(text, command, depth)
        elif kind == "raw_string":
            out.append(Part(text[1:-1], True))
        elif kind == "ansi_c_string":
            out.append(Part(ansi_c(text[2:-1]), True))
        elif kind == "string_content":
            out.append(Part(unescape_double(text), True))
            if "`" in text:
                self._scan_backticks(text, command, depth)
        elif kind == "heredoc_content":
            out.append(Part(text, True))
        elif kind in ("string", "translated_string", "heredoc_body", "concatenation", "brace_expression"):
            inner_quoted = quoted or kind != "concatenation" and kind != "brace_expression"
            self._container(node, command, depth, inner_quoted, out, skip_quotes=kind in ("string",
                                                                                         "translated_string"))
        elif kind == "simple_expansion":
            out.append(Part(text, quoted, dynamic=True))
        elif kind == "expansion":
            out.append(Part(text, quoted, dynamic=True))
            if not _plain_expansion(node):
                command.opaque.append(f"`{text}` is a parameter expansion with an operator or index, "
                                      "evaluated when it runs")
                self._inside(node, command, depth)
        elif kind == "command_substitution":
            out.append(Part(text, quoted, dynamic=True))
            command.opaque.append(f"`{_short(text)}` runs a command and uses its output")
            if text.startswith("`") and "\\" in text:
                self._backticks(text[1:-1], depth)
            else:
                self.children(node, depth)
        elif kind == "process_substitution":
            out.append(Part(text, quoted, dynamic=True))
            command.opaque.append(f"`{_short(text)}` runs a command (process substitution)")
            self.children(node, depth)
        elif kind == "arithmetic_expansion":
            out.append(Part(text, quoted, dynamic=True))
            command.opaque.append(f"`{_short(text)}` is arithmetic, which can run code through array indices")
            self._inside(node, command, depth)
        elif kind in ("array", "subscript"):
            out.append(Part(text, quoted, dynamic=kind == "subscript"))
            self._inside(node, command, depth)
        elif kind == "comment":
            return
        else:
            out.append(Part(text, quoted, dynamic=True))
            command.opaque.append(f"`{_short(text)}` ({kind}) is not understood by this reader")
            self._inside(node, command, depth)

    def _scan_backticks(self, text: str, command: SimpleCommand, depth: int) -> None:
        """Backtick substitutions the grammar left as text (in a here-document, inside `${…}`): each is
        read as commands, and makes `command` opaque."""
        i, start = 0, -1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "`":
                if start < 0:
                    start = i
                else:
                    command.opaque.append(f"`{_short(text[start:i + 1])}` runs a command and uses its output")
                    self._backticks(text[start + 1:i], depth)
                    start = -1
            i += 1
        if start >= 0:
            raise Unparseable("a backtick is not closed")

    def _backticks(self, inner: str, depth: int) -> None:
        """Inside backticks bash first turns `\\``, `\\$` and `\\\\` into the plain character, then reads
        the result as commands (so `` `echo \\`rm x\\`` `` runs `rm x`); the grammar reads the escapes as
        text, so the inside is unescaped and read again."""
        self._reparse(re.sub(r"\\([`$\\])", r"\1", inner), depth)

    def _reparse(self, source: str, depth: int) -> None:
        """Read `source` as commands of their own (text the grammar read differently from bash)."""
        data = source.encode("utf-8")
        tree = _parser().parse(data)
        inside = _Walker(data, self.deadline)
        inside.visited = self.visited
        if tree.root_node.has_error:
            inside._check_errors(tree.root_node)
        if b"\\\n" in data:
            inside._check_continuations(tree.root_node)
        inside.statement(tree.root_node, depth + 2)
        self.visited = inside.visited
        self.commands.extend(inside.commands)

    def _container(self, node: Any, command: SimpleCommand, depth: int, quoted: bool, out: list[Part],
                   skip_quotes: bool) -> None:
        """A node made of pieces: its children, and any text between them (kept literally)."""
        position = node.start_byte
        children = node.children
        for child in children:
            if child.start_byte > position:
                gap = self.data[position:child.start_byte].decode("utf-8", errors="replace")
                out.extend([Part(gap, True)] if quoted else unescape_unquoted(gap))
            position = max(position, child.end_byte)
            if not child.is_named:
                if skip_quotes and child.type in ('"', '$"'):
                    continue
                piece = self.text(child)
                out.extend([Part(piece, True)] if quoted else unescape_unquoted(piece))
                continue
            self._parts(child, command, depth + 1, quoted, out)
        if node.end_byte > position:
            gap = self.data[position:node.end_byte].decode("utf-8", errors="replace")
            out.extend([Part(gap, True)] if quoted else unescape_unquoted(gap))

    def _inside(self, node: Any, command: SimpleCommand, depth: int) -> None:
        """Commands in any nested place of an expansion (`${x:-$(…)}`, `${a[$(…)]}`, `$(( $(…) ))`)."""
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self._parts(child, command, depth + 1, False, [])
            elif child.type == "arithmetic_expansion":
                self._parts(child, command, depth + 1, False, [])
            elif child.type == "raw_string" and _in_double_quotes(node) and any(c in self.text(child) for c in "$`"):
                # inside "…${x:-'…'}…" single quotes are plain characters: bash expands what they hold
                inner = self.text(child)[1:-1]
                if '"' in inner:
                    raise Unparseable(f"{self._where(child)}: quotes inside `${{…}}` inside double quotes are not read")
                command.opaque.append(f"`{_short(self.text(child))}` is expanded inside double quotes")
                self._reparse(f': "{inner}"', depth + 1)
            else:
                self._tick(depth + 1)
                if child.type in ("word", "string_content") and "`" in self.text(child):
                    self._scan_backticks(self.text(child), command, depth + 1)
                self._inside(child, command, depth + 1)


def _in_double_quotes(node: Any) -> bool:
    """Whether `node` sits inside a double-quoted string (up to the nearest command)."""
    parent = node.parent
    while parent is not None and parent.type not in ("command", "program", "command_substitution"):
        if parent.type == "string":
            return True
        parent = parent.parent
    return False


def _plain_expansion(node: Any) -> bool:
    """`${name}` alone: no operator, index, length, indirection or nested expansion."""
    named = node.named_children
    return len(named) == 1 and named[0].type in ("variable_name", "special_variable_name") and \
        len(node.children) == 3


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"
