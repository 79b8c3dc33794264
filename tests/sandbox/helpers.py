"""What the sandbox tests share: a workspace an ordinary user may use too, and a way to run a jail's
command as root (the test process) or as uid 65534 (`setpriv`, the jail's descriptors passed on)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

from app.sandbox import bwrap, jail

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]


def nobody_reason() -> str | None:
    """Why the tests cannot run a jail as an ordinary user here, or None when they can."""
    if os.getuid() != 0:
        return "the tests run as an ordinary user already (setpriv needs root to switch)"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    launch = bwrap.wrap(["true"], bwrap.SandboxSpec("read-only", Path("/")))
    try:
        probe = subprocess.run([*AS_NOBODY, *launch.argv], capture_output=True, **launch.kwargs())
    finally:
        launch.started()
    if probe.returncode != 0:
        return f"the kernel refuses a jail to uid {NOBODY}: {probe.stderr.decode(errors='replace').strip()}"
    return None


def open_place(prefix: str) -> Path:
    """A fresh directory under /var/tmp (outside the jail's private /tmp) that uid 65534 may write."""
    place = Path("/var/tmp") / f"whimbrel-{prefix}-{uuid.uuid4().hex[:10]}"
    place.mkdir(mode=0o777)
    place.chmod(0o777)
    return place


def run_jailed(command: str, workspace: Path, *, as_user: str = "root", network: bool = False,
               env: dict[str, str] | None = None, level: str = "workspace-write") -> subprocess.CompletedProcess:
    """`bash -c COMMAND` in the bash tool's jail for `workspace`, as root or as uid 65534."""
    spec = bwrap.SandboxSpec(level, workspace, network, home=workspace / "home")
    launch = bwrap.wrap(["bash", "-c", command], spec, env=env)
    prefix = AS_NOBODY if as_user == "nobody" else []
    try:
        return subprocess.run([*prefix, *launch.argv], capture_output=True, text=True, timeout=60, cwd=workspace,
                              stdin=subprocess.DEVNULL, **launch.kwargs())
    finally:
        launch.started()
