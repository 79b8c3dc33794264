"""Commands run inside bubblewrap: the system read-only, the workspace and a private /tmp writable,
secrets hidden, no network unless asked for.

Levels, like other agents': `read-only` (nothing writable but a private /tmp), `workspace-write`
(the default: the workspace too), `full` (no sandbox). `available()` probes once whether bwrap
can really start here (user namespaces may be off, e.g. in some containers).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

LEVELS = ("read-only", "workspace-write", "full")
HIDDEN_IN_HOME = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud", ".netrc")
BLOCKED_SIGNS = ("Read-only file system", "Network is unreachable", "Could not resolve host",
                 "Temporary failure in name resolution", "Name or service not known")
MISSING = "No such file or directory"
ABSOLUTE_PATH = re.compile(r"(/[^\s'\"`:,;]+)")


@lru_cache(maxsize=1)
def available() -> str | None:
    """The bwrap binary when it can run a command here, else None (cached for the process)."""
    binary = shutil.which("bwrap")
    if binary is None:
        return None
    try:
        probe = subprocess.run([binary, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"],
                               capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return binary if probe.returncode == 0 else None


def unavailable_reason() -> str:
    """Why there is no sandbox, in words (for the status bar's tooltip and skipped tests)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    return "bubblewrap is installed but cannot create a sandbox here (user namespaces are disabled?)"


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


def wrap(argv: list[str], spec: SandboxSpec, binary: str | None = None) -> list[str]:
    """`argv` run inside the sandbox `spec` describes (unchanged for `full`)."""
    if spec.level == "full":
        return list(argv)
    binary = binary or available()
    if binary is None:
        raise RuntimeError(unavailable_reason())
    workspace = spec.workspace.resolve()
    out = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           "--die-with-parent", "--unshare-pid"]
    for place in (Path(p).resolve() for p in spec.readable):  # after the private /tmp, which would hide them
        if place.is_relative_to("/tmp"):
            out += ["--ro-bind", str(place), str(place)]
    if spec.level == "workspace-write":
        out += ["--bind", str(workspace), str(workspace)]
    if not spec.network:
        out.append("--unshare-net")
    for place in [spec.home / name for name in HIDDEN_IN_HOME] + list(spec.hidden):
        place = Path(place)
        if place.is_dir() and not workspace.is_relative_to(place.resolve()):
            out += ["--tmpfs", str(place.resolve())]
        elif place.is_file():
            out += ["--ro-bind", "/dev/null", str(place.resolve())]
    out += ["--chdir", str(workspace), "--"]
    return out + list(argv)


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


