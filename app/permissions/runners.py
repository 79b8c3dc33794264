"""Programs whose options or scripts make them run other commands, write files, or run code the reader
cannot follow.

An allow rule such as `bash(git *)`, `bash(sed *)` or `bash(find *)` is written for a program that reads;
`git -c core.fsmonitor=…`, `sed 'e …'`, `tar --to-command=…`, `awk 'BEGIN{system(…)}'`, `vim -c '!…'` and
`find -delete` make the same program run a command or write a file. `runner_reasons(argv)` says why such a
call is opaque (no allow rule vouches for it: see `wrappers.Effective.opaque`).

`hidden_code(argv)` says why a call runs code the reader cannot follow at all (inline interpreter code,
`env -S`, an awk or sed script that runs commands); risk rates those high, so auto mode asks about them
(deny rules cannot see what such code runs, and neither can the risk patterns). `inline_lines(argv)` is the
best-effort other half: the string literals of that code that read as shell lines, so deny rules look at
them too (`python3 -c "os.system('touch x')"` meets `deny bash(touch *)`).

User-defined git aliases (`git st`) are not opaque: they come from the user's or the repository's git
config, and a write to `.git/` is always asked about; `git -c alias.x=…` is (every `-c` is).
"""

from __future__ import annotations

import re

# program -> {option: why}; an option also counts when written `--opt=value` or, short, with its value attached
_OPTIONS: dict[str, dict[str, str]] = {
    "git": {"-c": "sets git configuration for this run (pagers, fsmonitor, aliases and hooks run commands)",
            "--config-env": "sets git configuration from the environment",
            "--exec-path": "changes where git finds the programs it runs",
            "--upload-pack": "names a program git runs", "--receive-pack": "names a program git runs",
            "--exec": "names a program git runs", "--output": "writes its output to a file",
            "--ext-diff": "runs an external diff program", "--extcmd": "runs a command per file",
            "-x": "runs a command (rebase --exec, difftool -x)", "--open-files-in-pager": "runs a pager command",
            "-O": "runs a pager command (grep -O)"},
    "tar": {"--to-command": "pipes each file to a command", "--checkpoint-action": "runs an action (exec=…)",
            "--use-compress-program": "runs a compressor command", "-I": "runs a compressor command",
            "--info-script": "runs a script at each volume", "-F": "runs a script at each volume",
            "--new-volume-script": "runs a script at each volume", "--rsh-command": "runs a remote shell command",
            "--rmt-command": "runs a remote tape command"},
    "find": {"-delete": "deletes the files it finds", "-fprint": "writes a file", "-fprint0": "writes a file",
             "-fprintf": "writes a file", "-fls": "writes a file"},
    "vim": {"-c": "runs an editor command", "--cmd": "runs an editor command", "-S": "sources a script",
            "-s": "reads editor commands from a file", "-u": "reads a vimrc, which runs commands",
            "-e": "runs in ex mode, reading commands from its input", "-es": "runs in ex mode, reading commands "
            "from its input", "-E": "runs in ex mode", "-Es": "runs in ex mode", "-w": "writes typed keys to a file",
            "-W": "writes typed keys to a file", "--remote": "talks to another editor",
            "--remote-send": "sends keys to another editor", "--remote-expr": "evaluates in another editor",
            "-x": "edits encrypted, asking for a key"},
    "man": {"-P": "runs a pager command", "--pager": "runs a pager command", "-H": "runs a browser command",
            "--html": "runs a browser command", "--browser": "runs a browser command",
            "-p": "runs preprocessors it names"},
    "rsync": {"-e": "runs a remote shell command", "--rsh": "runs a remote shell command",
              "--rsync-path": "runs a remote program"},
    "ssh": {"-o": "sets options (ProxyCommand, LocalCommand run commands)", "-F": "reads a config file"},
    "scp": {"-o": "sets ssh options (ProxyCommand runs a command)", "-S": "runs a program as ssh",
            "-F": "reads a config file"},
    "zip": {"-TT": "runs a test command", "--unzip-command": "runs a test command"},
    "sort": {"--compress-program": "runs a compressor command"},
    "less": {"-k": "reads a key file that can run commands", "--lesskey-file": "reads a key file"},
    "awk": {"-f": "runs a program from a file", "--file": "runs a program from a file", "-E": "runs a program "
            "from a file", "--exec": "runs a program from a file", "-l": "loads an extension", "--load": "loads an "
            "extension", "-i": "includes a program file", "--include": "includes a program file"},
    "sed": {"-f": "runs a script from a file", "--file": "runs a script from a file"},
}
_SAME = {"vi": "vim", "nvim": "vim", "view": "vim", "gvim": "vim", "vimdiff": "vim", "rvim": "vim",
         "gawk": "awk", "mawk": "awk", "nawk": "awk", "gsed": "sed", "gtar": "tar", "bsdtar": "tar", "sftp": "scp"}
_PROGRAM_OPTIONS = {"awk": {"-e", "--source"}, "sed": {"-e", "--expression"}}
_VALUED = {"awk": {"-v", "-F", "--assign", "--field-separator"}, "sed": {"-l", "--line-length"}}
GIT_RUNS = {("bisect", "run"): "runs a command at each step", ("submodule", "foreach"): "runs a command in each "
            "submodule", ("filter-branch",): "runs filter commands", ("difftool",): "runs a diff tool",
            ("mergetool",): "runs a merge tool", ("config",): "changes git configuration (which can make git run "
            "commands)", ("daemon",): "serves the repository", ("instaweb",): "starts a web server"}
GIT_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "get", "list"}
# inline code: interpreter -> options whose value is the program
INLINE = {"python": {"-c"}, "perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "-p", "--eval", "--print"},
          "php": {"-r"}, "lua": {"-e"}, "Rscript": {"-e"}, "osascript": {"-e"}, "tclsh": set(), "pwsh": {"-c",
          "-Command"}, "deno": {"eval"}, "bun": {"-e", "--eval"}}
_STRING = re.compile(r"'((?:[^'\\\n]|\\.)*)'|\"((?:[^\"\\\n]|\\.)*)\"")
_LIST = re.compile(r"[\[(]((?:\s*(?:'[^'\n]*'|\"[^\"\n]*\")\s*,?)+)[\])]")
_AWK_RUNS = re.compile(r"\bsystem\s*\(|\|")
# a string, or a regex where an operand starts (never after an operand, where `/` divides)
_AWK_LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"|(?:^|(?<=[(~!,{;&|]))\s*/(?:[^/\\\n]|\\.)*/')
_AWK_WRITES = re.compile(r"\bprintf?\b[^;{}\n]*>")


def program(argv: list[str]) -> str:
    """The program's name as the tables know it (`/usr/bin/gawk` → awk, `python3.12` → python)."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    name = re.sub(r"[0-9.]+$", "", name) if name.startswith(("python", "perl", "ruby", "lua", "php")) else name
    return _SAME.get(name, name)


def _has(text: str, option: str) -> bool:
    if text == option or text.startswith(option + "="):
        return True
    return len(option) == 2 and option[1] != "-" and text.startswith(option) and not text.startswith("--")


def runner_reasons(argv: list[str]) -> list[str]:
    """Why this call's options or script make it run commands or write files (empty when none do)."""
    name = program(argv)
    out: list[str] = []
    table = _OPTIONS.get(name, {})
    for arg in argv[1:]:
        if name == "vim" and arg.startswith("+") and len(arg) > 1:
            out.append(f"`{name} {arg}` runs an editor command")
            continue
        for option, why in table.items():
            if _has(arg, option) and not (name in ("find", "git") and arg != option and not arg.startswith("--")):
                out.append(f"`{name} {option}` {why}")
                break
    if name == "tar" and len(argv) > 1 and not argv[1].startswith("-") and set(argv[1]) & {"I", "F"}:
        out.append("`tar`'s bundled options run a command (I or F)")
    if name == "git":
        out += _git(argv)
    if name == "ex" or name == "vim" and argv[0].rsplit("/", 1)[-1] == "ex":
        out.append("`ex` reads editor commands from its input")
    script = _script(name, argv)
    if script is not None:
        out += _script_reasons(name, script)
    return out


def _git(argv: list[str]) -> list[str]:
    words = [a for a in argv[1:] if not a.startswith("-")]
    for key, why in GIT_RUNS.items():
        if tuple(words[:len(key)]) == key:
            if key == ("config",) and set(argv) & GIT_CONFIG_READS and not set(argv) & {"--add", "--unset", "set",
                                                                                        "--replace-all", "-e",
                                                                                        "--edit", "unset"}:
                continue
            return [f"`git {' '.join(key)}` {why}"]
    return []


def _script(name: str, argv: list[str]) -> str | None:
    """The program text of awk or sed (their `-e` values joined, or the first operand), else None."""
    if name not in ("awk", "sed"):
        return None
    given: list[str] = []
    operands: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _PROGRAM_OPTIONS[name] and i + 1 < len(args):
            given.append(args[i + 1])
            i += 2
            continue
        if arg.startswith(("--expression=", "--source=")):
            given.append(arg.split("=", 1)[1])
        elif name == "sed" and arg.startswith("-e") and len(arg) > 2:
            given.append(arg[2:])
        elif arg in _VALUED.get(name, set()):
            i += 1
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
        i += 1
    if given:
        return "\n".join(given)
    return operands[0] if operands else None


def _script_reasons(name: str, script: str) -> list[str]:
    if name == "awk":
        script = _AWK_LITERALS.sub("", script)  # strings and /regex/ in a pattern's place: `/a|b/` is no pipe
        if _AWK_RUNS.search(script.replace("||", "")):
            return ["the awk program runs commands (system() or a pipe)"]
        if _AWK_WRITES.search(script):
            return ["the awk program may write files (print > file)"]
        if "@load" in script:
            return ["the awk program loads an extension"]
        return []
    found = _sed_commands(script)
    if found is None:
        return ["the sed script is not understood by this reader"]
    return [f"the sed script {why}" for why in found]


def _sed_commands(script: str) -> list[str] | None:
    """What a sed script does beyond editing its stream (runs commands with `e`, writes files with `w`/`W`
    or the s///w flag), or None when the script cannot be read."""
    out: list[str] = []
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;{}!0123456789$,~+":
            i += 1
            continue
        if ch in "/\\":  # an address /re/ or \cREc
            delim = "/" if ch == "/" else (script[i + 1] if i + 1 < n else "")
            end = _skip_delimited(script, i + (1 if ch == "/" else 2), delim)
            if end is None:
                return None
            i = end
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch in "sy":
            if i + 1 >= n:
                return None
            delim = script[i + 1]
            end = _skip_delimited(script, i + 2, delim)
            end = _skip_delimited(script, end, delim) if end is not None else None
            if end is None:
                return None
            flags = ""
            while end < n and script[end] not in ";\n}":
                flags += script[end]
                end += 1
            if ch == "s" and "e" in flags.split("w", 1)[0]:
                out.append("runs its result as a command (the s///e flag)")
            if ch == "s" and "w" in flags:
                out.append("writes a file (the s///w flag)")
            i = end
            continue
        if ch in "eE":
            out.append("runs a command (`e`)")
        elif ch in "wW":
            out.append("writes a file (`w`)")
        if ch in "aicrRwWeEbtTvlLqQ:":  # the rest of the line is its argument
            while i < n and script[i] != "\n" and not (ch in "btTlLqQ" and script[i] in ";}"):
                i += 1
            continue
        if ch in "dDgGhHnNpPxz=F#":
            if ch == "#":
                while i < n and script[i] != "\n":
                    i += 1
            i += 1
            continue
        return None
    return out


def _skip_delimited(text: str, start: int, delim: str) -> int | None:
    """The index just past the next unescaped `delim` from `start`, or None when there is none."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == delim:
            return i + 1
        i += 1
    return None


def written(argv: list[str]) -> tuple[list[str], list[str]]:
    """(paths this call's options or script write, why some writes are only known when it runs): find's
    -delete (its start points) and -fprint*/-fls files, sed's `w` files, git's --output, awk's `print >`."""
    name = program(argv)
    paths: list[str] = []
    unknown: list[str] = []
    if name == "find":
        starts = []
        for arg in argv[1:]:
            if arg.startswith(("-", "(", "!")) or arg in (")", ","):
                break
            starts.append(arg)
        if "-delete" in argv:
            paths += starts or ["."]
        paths += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-fprint", "-fprint0", "-fprintf", "-fls")]
    elif name == "git":
        paths += [a.split("=", 1)[1] for a in argv if a.startswith("--output=")]
        paths += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--output"]
    elif name == "sed":
        script = _script(name, argv) or ""
        paths += [m.group(1).strip() for m in re.finditer(r"(?:^|[;\n\d$/}]|\s)[wW]\s+([^\n;]+)", script)]
    elif name == "awk" and "may write files" in " ".join(_script_reasons(name, _script(name, argv) or "")):
        unknown.append("the awk program writes files it names itself (print > file)")
    return [p for p in paths if p], unknown


def hidden_code(argv: list[str], opaque: list[str]) -> list[str]:
    """Why this call runs code the reader cannot follow (risk rates it high), empty when it does not."""
    name = program(argv)
    out: list[str] = []
    if name in INLINE and any(a in INLINE[name] or a.split("=", 1)[0] in INLINE[name] for a in argv[1:]):
        out.append(f"`{name}` runs inline code this reader cannot follow")
    if name in ("awk", "sed"):
        script = _script(name, argv)
        if script is not None:
            out += [r for r in _script_reasons(name, script) if "runs" in r or "not understood" in r]
    out += [r for r in opaque if "env -S" in r or "only known when it runs (an expansion" in r
            or r.startswith("`eval`")]
    return out


def inline_lines(argv: list[str]) -> list[str]:
    """Best effort: string literals of an interpreter's inline code, an awk program or a sed script that
    could be shell lines it runs, for deny rules to look at."""
    name = program(argv)
    code: list[str] = []
    if name in INLINE:
        for i, arg in enumerate(argv[1:], 1):
            if arg in INLINE[name] and i + 1 < len(argv):
                code.append(argv[i + 1])
            elif "=" in arg and arg.split("=", 1)[0] in INLINE[name]:
                code.append(arg.split("=", 1)[1])
    elif name in ("awk", "sed"):
        script = _script(name, argv)
        if script is not None:
            code.append(script)
            if name == "sed":
                code += [part for part in re.split(r"(?<!\\)[|/#,:@]", script) if " " in part]
                code += [m.group(1) for m in re.finditer(r"(?:^|[;\n\d$])\s*e\s+([^\n;]+)", script)]
    out: list[str] = []
    for text in code:
        for match in _STRING.finditer(text):
            literal = match.group(1) if match.group(1) is not None else match.group(2)
            if literal and " " in literal.strip():
                out.append(literal)
        for match in _LIST.finditer(text):  # subprocess.run(['touch', 'x']): the items as one line
            items = [m.group(1) if m.group(1) is not None else m.group(2) for m in _STRING.finditer(match.group(1))]
            if len(items) > 1:
                out.append(" ".join(_quote(item) for item in items))
    if name == "sed":  # `s|.*|touch x|e`, `1e touch x`: the pieces between delimiters
        out += [t.strip() for t in code[1:] if t.strip()]
    return list(dict.fromkeys(out))[:32]


def _quote(text: str) -> str:
    return text if re.fullmatch(r"[\w./=:@%+-]+", text) else "'" + text.replace("'", "'\\''") + "'"
