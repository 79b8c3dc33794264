"""A heuristic risk level (critical, high, medium, low) with a one-line reason, for every call.

Bash is assessed on the parsed command, so `grep "rm -rf" notes.md` and `echo sudo` are what
they are (a search and a print), while `sudo`, recursive deletes, `curl … | sh` and friends
are flagged wherever they sit in a compound line, inside `$(…)`, `${x:-$(…)}` and blocks too.
A command that is only known when it runs (opaque) is at least medium; one that runs code the reader
cannot follow (inline interpreter code, `env -S`, an awk or sed script running commands, a glob or
expanded command name: `Effective.hidden`) is high, whatever rules exist, so auto mode asks (an allow
rule for the interpreter still runs it); a write whose target is only known then is high.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.permissions.shell import WRITE_OPERATORS, SimpleCommand, Unparseable
from app.permissions.wrappers import Effective, read_line

Level = Literal["low", "medium", "high", "critical"]
ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}
SECRET_NAMES = (".env", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".netrc", ".pgpass", "credentials",
                ".npmrc", ".pypirc")
SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore")  # private keys and key stores
SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config/gcloud", ".azure")
NETWORK_SENDERS = {"curl", "wget", "nc", "ncat", "netcat", "scp", "rsync", "sftp", "ftp", "telnet", "ssh"}
SHELLS = {"sh", "bash", "zsh", "dash", "python", "python3", "perl", "ruby", "node"}


@dataclass(frozen=True)
class Risk:
    level: Level
    reason: str

    def at_least(self, level: Level) -> bool:
        return ORDER[self.level] >= ORDER[level]


LOW = Risk("low", "no risky pattern found")


def _worst(risks: list[Risk]) -> Risk:
    return max(risks, key=lambda r: ORDER[r.level], default=LOW)


def is_secret_path(text: str) -> bool:
    """A path that names a secret: `.env` files, SSH keys, cloud credentials."""
    norm = text.replace("\\", "/")
    name = norm.rstrip("/").rsplit("/", 1)[-1]
    if name == ".env" or name.startswith(".env.") or name in SECRET_NAMES or name.endswith(SECRET_SUFFIXES):
        return True
    return any(f"/{d}/" in f"/{norm}/" or norm.startswith(f"~/{d}") for d in SECRET_DIRS)


def _outside(arg: str, workspace: Path) -> bool:
    if arg.startswith("-"):
        return False
    path = Path(os.path.expanduser(arg))
    path = path if path.is_absolute() else workspace / path
    return not Path(os.path.normpath(path)).is_relative_to(workspace)


def _flags(argv: list[str]) -> set[str]:
    """Short flags spread out (`-rf` → r, f) and long flags as written."""
    found: set[str] = set()
    for arg in argv[1:]:
        if arg.startswith("--"):
            found.add(arg)
        elif arg.startswith("-") and len(arg) > 1:
            found.update(arg[1:])
    return found


def _command_risk(command: Effective, workspace: Path) -> Risk:
    argv = command.argv
    risks: list[Risk] = []
    if "sudo" in command.wrappers or "doas" in command.wrappers:
        risks.append(Risk("high", "runs as root with sudo"))
    if not argv:
        return _worst(risks)
    name, flags, args = argv[0].rsplit("/", 1)[-1], _flags(argv), [a for a in argv[1:] if not a.startswith("-")]
    if name == "rm":
        recursive = bool({"r", "R", "--recursive"} & flags)
        if any(a in ("/", "/*", "~", "~/", "$HOME", "..") or a.startswith("/") and a.count("/") == 1 for a in args) \
                and recursive:
            risks.append(Risk("critical", "recursively deletes a top-level folder or the home folder"))
        elif any(_outside(a, workspace) for a in args):
            risks.append(Risk("high", "deletes files outside the workspace"))
        elif recursive:
            risks.append(Risk("high", "deletes recursively"))
        else:
            risks.append(Risk("medium", "deletes files"))
    elif name in ("dd", "mkfs") or name.startswith("mkfs.") or name in ("fdisk", "parted", "wipefs", "shred"):
        if name != "dd" or any(a.startswith("of=/dev/") for a in argv):
            risks.append(Risk("critical", "writes to a block device or disk"))
    elif name in ("chmod", "chown", "chgrp") and {"R", "--recursive"} & flags:
        risks.append(Risk("high", f"changes permissions recursively ({name} -R)"))
    elif name == "git" and len(argv) > 1:
        sub = argv[1]
        if sub == "push" and ({"f", "--force", "--force-with-lease"} & flags or any(a.startswith("+") for a in args[1:])):
            risks.append(Risk("high", "force-pushes, which can overwrite others' history"))
        elif sub == "reset" and "--hard" in flags:
            risks.append(Risk("high", "git reset --hard discards uncommitted changes"))
        elif sub == "clean" and "f" in flags:
            risks.append(Risk("high", "git clean -f deletes untracked files"))
        elif sub == "push":
            risks.append(Risk("medium", "pushes to a remote"))
    if name in NETWORK_SENDERS:
        sends = any(a.startswith("@") or a.startswith("-T") or a in ("-d", "--data", "--data-binary", "-F",
                                                                     "--upload-file") for a in argv[1:])
        if name in ("scp", "rsync", "sftp", "nc", "ncat", "netcat") or sends or "--post-file" in " ".join(argv):
            risks.append(Risk("high", "sends data to the network"))
        else:
            risks.append(Risk("medium", "reaches the network"))
    for arg in argv[1:]:
        if is_secret_path(arg):
            risks.append(Risk("high", f"reads or touches a secret ({arg})"))
            break
    return _worst(risks)


HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


def _redirect_risk(command: SimpleCommand, workspace: Path) -> Risk:
    for op, target in command.redirects:
        text = target.text
        if text.startswith(("/dev/tcp/", "/dev/udp/")):
            return Risk("high", f"opens a network connection ({text})")
        if op in WRITE_OPERATORS and target.unknown:
            return Risk("high", f"writes where only running it tells ({target.unknown})")
        if op in WRITE_OPERATORS:
            if text in HARMLESS_TARGETS or text.startswith(("/dev/fd/", "/proc/self/fd/")):
                continue  # `make test &>/dev/null`: output thrown away or passed on, nothing written
            if text.startswith("/dev/"):
                return Risk("critical", f"writes to the device {text}")
            if _outside(text, workspace):
                return Risk("high", f"writes outside the workspace ({text})")
        if op == "<" and is_secret_path(text):
            return Risk("high", f"reads a secret ({text})")
    return LOW


def _pipe_to_shell(source: str, commands: list[Effective]) -> Risk | None:
    """`curl … | sh`: something fetched from the network is run as a program."""
    names = [c.argv[0].rsplit("/", 1)[-1] if c.argv else "" for c in commands]
    if "|" in source and any(n in ("curl", "wget") for n in names) and any(n in SHELLS for n in names[1:]):
        return Risk("critical", "runs a script downloaded from the network (… | sh)")
    return None


def assess_command(command: str, workspace: Path) -> Risk:
    """The risk of a bash command line: the worst of its parts."""
    workspace = workspace.resolve()
    try:
        simple, effective = read_line(command)
    except Unparseable as error:
        return Risk("medium", f"the command could not be read ({error})")
    risks = [_command_risk(c, workspace) for c in effective]
    risks += [_redirect_risk(c, workspace) for c in simple]
    risks += [Risk("medium", f"part of it is only known when it runs: {c.opaque[0]}") for c in effective if c.opaque]
    risks += [Risk("high", f"it runs code this reader cannot follow ({c.hidden[0]}), so neither rules nor risk "
                   "checks see what that code does") for c in effective if c.hidden]
    piped = _pipe_to_shell(command, effective)
    if piped:
        risks.append(piped)
    return _worst(risks)


def assess_call(tool: str, args: dict, paths: list[Path], workspace: Path) -> Risk:
    """The risk of any call: bash by its command; file tools by the paths they touch."""
    if tool == "bash" and isinstance(args.get("command"), str):
        return assess_command(args["command"], workspace)
    root = workspace.resolve()
    for path in paths:
        if is_secret_path(str(path)):
            return Risk("high", f"touches a secret ({path})")
    if tool in ("write_file", "edit_file"):
        if any(not p.is_relative_to(root) for p in paths):
            return Risk("high", "writes outside the workspace")
        return Risk("low", "edits a file in the workspace")
    if tool == "web_fetch" and isinstance(args.get("url"), str):
        return web_risk(args["url"])
    return LOW


LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".lan", ".home.arpa")


def web_risk(url: str) -> Risk:
    """A fetch rated by where it goes: a public host is low, the local network (reachable only where
    the config allows it) medium, as the address policy's refusal comes before anyone is asked."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url.strip()).hostname or "").rstrip(".").lower()
    except ValueError:
        return Risk("medium", "a URL that cannot be read")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if host == "localhost" or host.endswith(LOCAL_NAMES):
            return Risk("medium", f"fetches from {host}, a local-network name")
        return Risk("low", f"fetches from {host}, a public host name (its address is checked before connecting)")
    if address.is_global:
        return Risk("low", f"fetches from {address}, a public address")
    return Risk("medium", f"fetches from {address}, an address on this machine or the local network")
