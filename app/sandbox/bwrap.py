"""Commands run inside bubblewrap: the system read-only, the workspace and a private /tmp writable,
secrets hidden, no network unless asked for.

Levels, like other agents': `read-only` (nothing writable but a private /tmp), `workspace-write`
(the default: the workspace too), `full` (no sandbox). `available()` probes once whether bwrap
can really start here (user namespaces may be off, e.g. in some containers).

Every jail, whoever starts Whimbrel (root in a container too), runs in its own user namespace with
every capability dropped (an ordinary uid inside when Whimbrel is root), cannot make more user
namespaces, has its own PID and IPC namespaces (its /proc/1 is its own), its own session, dies with
Whimbrel, runs with no new privileges and the seccomp filter of app/sandbox/seccomp.py, from the
allow-listed environment of app/sandbox/jail.py (given to bwrap as its own environment rather than
with --clearenv/--setenv, so no value shows in `ps`; bwrap passes it on unchanged) and under its
rlimits (RLIMIT_NPROC counts every process and thread of the user, the jail's and the others). `minimal()` is the smaller
jail of run_code and math: no workspace, no home, no data, only the system's libraries, Python and
one runner file, all read-only, and a size-limited /tmp.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from app.sandbox import jail, seccomp

LEVELS = ("read-only", "workspace-write", "full")
HIDDEN_IN_HOME = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud", ".netrc")
BLOCKED_SIGNS = ("Read-only file system", "Network is unreachable", "Could not resolve host",
                 "Temporary failure in name resolution", "Name or service not known")
MISSING = "No such file or directory"
ABSOLUTE_PATH = re.compile(r"(/[^\s'\"`:,;]+)")
JAIL_UID = 1000  # who root is inside the jail: an ordinary uid (an unprivileged user stays itself)
HARDENING = ("--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-cgroup-try",
             "--cap-drop", "ALL", "--new-session", "--die-with-parent")
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf")


@lru_cache(maxsize=1)
def available() -> str | None:
    """The bwrap binary when it can start a hardened jail here, else None (cached for the process)."""
    binary = shutil.which("bwrap")
    if binary is None:
        return None
    return binary if _hardening(binary) is not None else None


@lru_cache(maxsize=4)
def _hardening(binary: str) -> tuple[str, ...] | None:
    """The hardening flags this bwrap and kernel accept: all of them, or all but --disable-userns (an
    older bwrap; the seccomp filter refuses new user namespaces anyway); None when neither starts."""
    for flags in (HARDENING, tuple(f for f in HARDENING if f != "--disable-userns")):
        try:
            probe = subprocess.run([binary, *_identity(), *flags, "--ro-bind", "/", "/", "--dev", "/dev",
                                    "--unshare-net", "true"], capture_output=True, timeout=10, env=jail.clean_env())
        except (OSError, subprocess.TimeoutExpired):
            return None
        if probe.returncode == 0:
            return flags
    return None


def unavailable_reason() -> str:
    """Why there is no sandbox, in words (for the status bar's tooltip and skipped tests)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    return "bubblewrap is installed but cannot create a sandbox here (user namespaces are disabled?)"


def _identity() -> list[str]:
    """Root is an ordinary uid inside; anyone else stays who they are (bwrap maps them by default)."""
    return ["--uid", str(JAIL_UID), "--gid", str(JAIL_UID)] if os.getuid() == 0 else []


@dataclass
class SandboxSpec:
    """Where a sandboxed command may write and what it may not see."""

    level: str
    workspace: Path
    network: bool = False
    hidden: list[Path] = field(default_factory=list)  # Whimbrel's data and config dirs, and more
    home: Path = field(default_factory=Path.home)
    # Read-only places that the private /tmp would otherwise cover (a Python that lives under /tmp)
    readable: list[Path] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.level == "full":
            return "full"
        return f"{self.level}, network {'on' if self.network else 'off'}"


def _hardened(binary: str, network: bool) -> tuple[list[str], tuple[int, ...]]:
    """The flags every jail starts with, and the descriptor of its seccomp filter (if any)."""
    out = [binary, *_identity(), *(_hardening(binary) or HARDENING)]
    if not network:
        out.append("--unshare-net")
    program = seccomp.jail_filter()
    if program is None:
        return out, ()
    fd = seccomp.filter_fd(program)
    return out + ["--seccomp", str(fd)], (fd,)


def wrap(argv: list[str], spec: SandboxSpec, binary: str | None = None,
         env: dict[str, str] | None = None) -> jail.Launch:
    """`argv` ready to run inside the sandbox `spec` describes (outside it for `full`, still from the
    clean environment and under the limits)."""
    env = jail.clean_env() if env is None else env
    if spec.level == "full":
        return jail.plain(argv, env)
    binary = binary or available()
    if binary is None:
        raise RuntimeError(unavailable_reason())
    workspace = spec.workspace.resolve()
    out, fds = _hardened(binary, spec.network)
    out += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for place in (Path(p).resolve() for p in spec.readable):  # after the private /tmp, which would hide them
        if place.is_relative_to("/tmp"):
            out += ["--ro-bind", str(place), str(place)]
    if spec.level == "workspace-write":
        out += ["--bind", str(workspace), str(workspace)]
    for place in [spec.home / name for name in HIDDEN_IN_HOME] + list(spec.hidden) + list(jail.settings().hidden):
        place = Path(place)
        if place.is_dir() and not workspace.is_relative_to(place.resolve()):
            out += ["--tmpfs", str(place.resolve())]
        elif place.is_file():
            out += ["--ro-bind", "/dev/null", str(place.resolve())]
    out += ["--chdir", str(workspace), "--"]
    return jail.Launch(out + list(argv), env, fds, sandboxed=True)


def python_places(*files: Path, interpreter: str | None = None) -> list[Path]:
    """What a sandboxed Python needs besides the system: its prefixes (a venv, pyenv) and `files`.
    For another `interpreter` than Whimbrel's own: the prefix its path implies (`/usr` for /usr/bin/python3)."""
    if interpreter is not None:
        places = {Path(interpreter).resolve().parent.parent, *files}
    else:
        places = {Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).resolve().parent.parent, *files}
    return sorted(Path(p).resolve() for p in places)


def minimal(argv: list[str], readable: list[Path], tmp_bytes: int, env: dict[str, str],
            binary: str | None = None) -> jail.Launch:
    """`argv` in the smallest jail: the system's programs and libraries and `readable`, read-only, a
    /tmp of `tmp_bytes`, no workspace, no home, no network; the working directory is /tmp."""
    binary = binary or available()
    if binary is None:
        raise RuntimeError(unavailable_reason())
    out, fds = _hardened(binary, network=False)
    for name in SYSTEM_DIRS:
        place = Path("/", name)
        if place.is_symlink():
            out += ["--symlink", os.readlink(place), str(place)]
        elif place.is_dir():
            out += ["--ro-bind", str(place), str(place)]
    for name in SYSTEM_FILES:
        out += ["--ro-bind-try", name, name]
    out += ["--dev", "/dev", "--proc", "/proc", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    for place in readable:
        if not place.is_relative_to("/usr"):
            out += ["--ro-bind", str(place), str(place)]
    out += ["--remount-ro", "/", "--chdir", "/tmp", "--"]  # the jail's own root is a tmpfs too: read-only
    return jail.Launch(out + list(argv), env, fds, sandboxed=True)


def blocked_by_sandbox(output: str, spec: SandboxSpec) -> str | None:
    """A sentence when a failed command's output shows the sandbox stopped it, else None."""
    if spec.level == "full":
        return None
    for sign in BLOCKED_SIGNS:
        if sign in output:
            return f"the sandbox ({spec.label}) blocked it: {sign.lower()}"
    if not spec.network and "Connection refused" in output:
        return f"the sandbox ({spec.label}) has no network: connection refused"
    if "Permission denied" in output and spec.level != "full":
        return f"the sandbox ({spec.label}) may have blocked it: permission denied"
    if MISSING in output:
        return _replaced_place(output, spec)
    return None


def _replaced_place(output: str, spec: SandboxSpec) -> str | None:
    """A path the command missed that is there outside the sandbox but not inside: the private /tmp
    or a hidden place stands in its stead (a file under the host's /tmp, ~/.ssh …)."""
    workspace = spec.workspace.resolve()
    places = [(Path(p), f"{p} is hidden inside the sandbox")
              for p in [spec.home / name for name in HIDDEN_IN_HOME] + list(spec.hidden)]
    places.append((Path("/tmp"), "the sandbox has its own private /tmp"))  # the widest place last
    for found in ABSOLUTE_PATH.finditer(output):
        path = Path(os.path.normpath(found.group(1)))
        if path.is_relative_to(workspace):
            continue
        for place, why in places:
            if path.is_relative_to(place) and path != place and (path.exists() or path.parent.exists()):
                return f"the sandbox ({spec.label}) blocked it: {why} ({path})"
    return None


