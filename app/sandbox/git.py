"""Whimbrel's own git commands, made safe from the repository they run in.

A workspace's `.git/config` is written by whoever wrote the workspace (a cloned repository, the
model through run_code or bash): `core.fsmonitor`, `core.hooksPath`, pagers, `diff.external`,
`core.sshCommand`, filter and diff drivers there would run commands outside any sandbox whenever
Whimbrel runs git (`git ls-files` for @-completion, worktrees, merges). `command()` gives the argv and
environment every such call uses:

- the clean environment (app/sandbox/jail.py: no API keys, no inherited `GIT_*`), no system config,
  no terminal prompt, `cat` as pager, `true` as editor, no askpass;
- `-c` overrides that switch off every config key that names a program to run (`NEUTRAL`), and, when
  the repository's config is not Whimbrel's own (`probe=True`), an empty value for each such key it
  actually sets under a name only it knows (`filter.<driver>.clean`, `pager.<command>`, …), found
  with `git config --list` (which reads config and runs nothing);
- `--no-ext-diff --no-textconv` for diffing commands (`diff.external`, `diff.<driver>.command` and
  `textconv` cannot be emptied: git would run the empty command). Whimbrel runs no `git merge`, so
  merge drivers never run.

The user's global config stays (name and e-mail for commits); a key of the dangerous kinds is
neutralised there too, which costs Whimbrel's own commands nothing.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from app.sandbox import jail

NEUTRAL = ("core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "core.editor=true",
           "sequence.editor=true", "core.sshCommand=false", "core.askPass=", "core.gitProxy=", "credential.helper=", "gpg.program=false", "uploadpack.packObjectsHook=", "core.alternateRefsCommand=",
           "protocol.ext.allow=never")
RUNS_A_PROGRAM = re.compile(
    r"^(filter\..+\.(clean|smudge|process)|pager\..+"
    r"|gpg\..+\.program|remote\..+\.(uploadpack|receivepack|vcs)|credential\..+\.helper|core\.fsmonitor"
    r"|core\.hookspath|core\.pager|core\.sshcommand|core\.editor|core\.askpass|core\.gitproxy|sequence\.editor"
    r"|uploadpack\.packobjectshook|core\.alternaterefscommand)$", re.IGNORECASE)
# An empty diff.external or textconv would be run (and fail), not ignored: diff commands are told instead
DIFFING = {"diff", "log", "show", "diff-tree", "diff-index", "diff-files", "format-patch"}
NO_DIFF_PROGRAMS = ["--no-ext-diff", "--no-textconv"]
REQUIRED = re.compile(r"^filter\.(.+)\.required$", re.IGNORECASE)


def environment(**extra: str) -> dict[str, str]:
    """The environment of Whimbrel's own git commands (`extra`: GIT_DIR, GIT_WORK_TREE, …)."""
    return jail.clean_env(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat",
                          GIT_EDITOR="true", GIT_ASKPASS="", SSH_ASKPASS="", GIT_OPTIONAL_LOCKS="0",
                          LC_ALL="C", **extra)


def _planted(cwd: str | Path | None, env: dict[str, str]) -> list[str]:
    """Keys of the config git would read here that name a program (and filters it would require)."""
    try:
        done = subprocess.run(["git", "config", "--list", "--name-only", "-z"], cwd=cwd, env=env,
                              capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = {n for n in done.stdout.decode("utf-8", "replace").split("\0") if n}
    neutral = {item.split("=", 1)[0].lower() for item in NEUTRAL}  # those keep NEUTRAL's value
    planted = sorted(f"{n}=" for n in names if RUNS_A_PROGRAM.match(n) and n.lower() not in neutral)
    return planted + sorted(f"{n}=false" for n in names if REQUIRED.match(n))


def command(args: list[str] | tuple[str, ...], cwd: str | Path | None = None, *, probe: bool = True,
            env: dict[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """(argv, env) for `git ARGS` run in `cwd`. `probe=False` where the repository is Whimbrel's own
    (the checkpoints' shadow store, whose config Whimbrel wrote and no tool can reach)."""
    env = environment() if env is None else env
    overrides = list(NEUTRAL) + (_planted(cwd, env) if probe else [])
    argv = ["git"]
    for override in overrides:
        argv += ["-c", override]
    return argv + _no_diff_programs(list(args)), env


def _no_diff_programs(args: list[str]) -> list[str]:
    """`args` with --no-ext-diff --no-textconv after a diffing subcommand (git's own options skipped)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in ("-c", "-C") else 1
    if index < len(args) and args[index] in DIFFING:
        return args[:index + 1] + NO_DIFF_PROGRAMS + args[index + 1:]
    return args


def run(args: list[str] | tuple[str, ...], cwd: str | Path | None = None, *, probe: bool = True,
        env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`subprocess.run` of a safe git command (kwargs as subprocess.run's: input, capture_output, …)."""
    argv, env = command(args, cwd, probe=probe, env=env)
    return subprocess.run(argv, cwd=cwd, env=env, **kwargs)
