"""math: a Python calculation in a child process — AST checks first, then trimmed builtins, an audit
hook, CPU/memory/file-size rlimits, a timeout, and bubblewrap with no network where it exists."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from tools.context import ToolContext
from tools.errors import ToolError
from tools.math_checks import ALLOWED_MODULES, check

RUNNER = Path(__file__).with_name("math_runner.py")
DEFAULT_TIMEOUT, MAX_TIMEOUT = 10.0, 60.0
MEMORY_LIMIT = 1 << 30  # address space, bytes
OUTPUT_LIMIT = 20_000


def _limits(cpu_seconds: int) -> None:
    """In the child before exec: its own process group and hard limits."""
    import resource

    os.setsid()
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def command() -> list[str]:
    """The runner's command line: inside bubblewrap (read-only root, no network, private /tmp) if present."""
    python = [sys.executable, "-I", str(RUNNER), ",".join(sorted(ALLOWED_MODULES))]
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return python
    home = str(Path.home())
    keep = []  # Python (pyenv, a venv) and the runner may live under the hidden home or /tmp: bind them back read-only
    places = {sys.base_prefix, sys.prefix, str(Path(sys.executable).resolve().parent.parent), str(RUNNER.parent)}
    for prefix in sorted(places):
        if prefix.startswith((home + "/", "/tmp/")):
            keep += ["--ro-bind", prefix, prefix]
    return [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--tmpfs", home, *keep, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
            "--new-session", "--chdir", "/tmp", *python]


async def math(args: dict[str, Any], ctx: ToolContext) -> str:
    code = str(args["code"])
    check(code)
    timeout = min(float(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8"}
    process = await asyncio.create_subprocess_exec(
        *command(), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=env, cwd="/", preexec_fn=lambda: _limits(int(timeout) + 1))
    try:
        out, err = await asyncio.wait_for(process.communicate(code.encode()), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        _kill(process)
        await process.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise ToolError(f"math: stopped after {timeout:g} s (the time limit); simplify the calculation") from None
    stdout = out.decode(errors="replace")[:OUTPUT_LIMIT]
    stderr = err.decode(errors="replace").strip()[-2000:]
    if process.returncode == -signal.SIGXCPU or process.returncode == -signal.SIGKILL:
        raise ToolError("math: stopped at the CPU time limit")
    if process.returncode != 0:
        if "MemoryError" in stderr:
            raise ToolError("math: ran out of memory (the limit is 1 GiB)")
        raise ToolError(f"math: {stderr or f'exited with status {process.returncode}'}"
                        + (f"\noutput before the error:\n{stdout}" if stdout.strip() else ""))
    return stdout.rstrip() or "(no output: end with an expression, or print() the result)"


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
