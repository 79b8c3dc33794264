"""The small print of reading bash words: quote removal, `$'…'` escapes, and which variables change
how a program behaves (an assignment of one makes a command opaque to allow rules)."""

from __future__ import annotations

import re

# Words that are syntax when unquoted in a command's place; tree-sitter reads some of them
# (`coproc`, a stray `}`) as plain command names.
RESERVED = frozenset({"{", "}", "!", "[[", "]]", "coproc", "function", "select", "case", "esac", "if", "then",
                      "else", "elif", "fi", "for", "while", "until", "do", "done", "in"})

# Variables that make a program run something else, load code, or read another config.
ENV_EXACT = {
    "BASH_ENV": "bash runs its file at start", "ENV": "sh runs its file at start",
    "PATH": "chooses which programs run", "PAGER": "names a program to run", "GIT_PAGER": "names a program to run",
    "MANPAGER": "names a program to run", "SYSTEMD_PAGER": "names a program to run",
    "EDITOR": "names a program to run", "VISUAL": "names a program to run", "BROWSER": "names a program to run",
    "SHELL": "names a program to run", "IFS": "changes how words are split", "PS4": "is expanded (and can run code)",
    "PS1": "is expanded (and can run code)", "PS0": "is expanded (and can run code)",
    "PROMPT_COMMAND": "runs code", "SHELLOPTS": "changes bash's options", "BASHOPTS": "changes bash's options",
    "CDPATH": "changes where cd goes", "GLOBIGNORE": "changes globbing", "HOME": "changes where ~ and configs are",
    "LESSOPEN": "runs a program", "LESSCLOSE": "runs a program", "SSH_ASKPASS": "names a program to run",
    "SUDO_ASKPASS": "names a program to run", "NODE_OPTIONS": "loads code into node",
    "NODE_PATH": "loads code into node", "RUBYOPT": "loads code into ruby", "RUBYLIB": "loads code into ruby",
    "PERLLIB": "loads code into perl", "JAVA_TOOL_OPTIONS": "loads code into java",
    "_JAVA_OPTIONS": "loads code into java", "CLASSPATH": "loads code into java", "MAKEFLAGS": "changes what make runs",
    "GCONV_PATH": "loads code", "TMPDIR": "moves temporary files", "XDG_CONFIG_HOME": "changes which config is read",
    "KUBECONFIG": "changes which cluster is used", "DOCKER_HOST": "changes which docker daemon is used",
    "RUSTC_WRAPPER": "names a program to run", "CC": "names a program to run", "CXX": "names a program to run",
    "TERMINFO": "changes files read", "INPUTRC": "changes files read", "HISTFILE": "changes files written",
    "PYTHONSTARTUP": "runs code", "OLDPWD": "changes where ~- and cd - go", "PWD": "changes where ~+ points",
    "FPATH": "loads functions", "ZDOTDIR": "changes which zsh files run",
}
ENV_PREFIXES = {
    "GIT_": "changes what git runs or reads (hooks, config, pager, ssh)", "LD_": "loads code into every program",
    "DYLD_": "loads code into every program", "PYTHON": "changes what python loads or runs",
    "PERL5": "loads code into perl", "NPM_CONFIG_": "changes what npm runs", "npm_config_": "changes what npm runs",
    "BASH_FUNC_": "defines a bash function", "MALLOC_": "changes the allocator", "CARGO_": "changes what cargo runs",
    "RUSTFLAGS": "changes what rustc runs", "GOFLAGS": "changes what go runs", "PIP_": "changes what pip installs",
    "UV_": "changes what uv runs", "SSH_": "changes what ssh runs", "COMP_": "changes completion",
}


def env_reason(name: str) -> str | None:
    """What setting `name` does that an allow rule cannot vouch for, or None for an ordinary variable."""
    if name in ENV_EXACT:
        return ENV_EXACT[name]
    for prefix, reason in ENV_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return "is not a plain variable name"
    return None


def unescape_unquoted(text: str) -> list[tuple[str, bool]]:
    """An unquoted run as (text, quoted) pieces: `\\x` is a quoted `x`, a backslash-newline disappears."""
    out: list[tuple[str, bool]] = []
    start = i = 0
    while i < len(text):
        if text[i] == "\\":
            if i > start:
                out.append((text[start:i], False))
            if i + 1 < len(text) and text[i + 1] != "\n":
                out.append((text[i + 1], True))
            i += 2
            start = i
        else:
            i += 1
    if start < len(text):
        out.append((text[start:], False))
    return out


def unescape_double(text: str) -> str:
    """Inside double quotes a backslash escapes only `$`, a backtick, `"`, `\\` and a newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
           "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c(body: str) -> str:
    """The value of `$'body'` as bash computes it (a NUL ends it)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        code = body[i + 1]
        i += 2
        if code in _SIMPLE:
            out.append(_SIMPLE[code])
        elif code in "01234567":
            digits = re.match(r"[0-7]{0,2}", body[i:]).group(0)  # type: ignore[union-attr]
            out.append(chr(int(code + digits, 8) & 0xFF))
            i += len(digits)
        elif code in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[code]
            digits = re.match(f"[0-9a-fA-F]{{0,{limit}}}", body[i:]).group(0)  # type: ignore[union-attr]
            if not digits:
                out.append("\\" + code)
                continue
            value = int(digits, 16)
            out.append(chr(value) if value < 0x110000 else "\ufffd")
            i += len(digits)
        elif code == "c" and i < len(body):
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + code)
    text = "".join(out)
    return text.split("\x00", 1)[0]
