"""math: a Python calculation in a child process, in the same hardened sandbox as run_code.

The AST checks (tools/math_checks.py) and the runner's trimmed builtins and audit hook are a first
filter only: what confines the calculation is bubblewrap's smallest jail (no workspace, no home, no
network, only the system's libraries and Python, read-only; every capability dropped, its own user and
PID namespaces) and, once the runner has started, a seccomp filter with no exec and no new processes,
plus CPU, memory and file-size (zero) rlimits and a timeout. Without bubblewrap math refuses to run."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from app.sandbox import bwrap, jail, seccomp
from tools.context import ToolContext
from tools.errors import ToolError
from tools.math_checks import ALLOWED_MODULES, check

RUNNER = Path(__file__).with_name("math_runner.py")
DEFAULT_TIMEOUT, MAX_TIMEOUT = 10.0, 60.0
MEMORY_LIMIT = 1 << 30  # address space, bytes
OUTPUT_LIMIT = 20_000
NO_SANDBOX = ("math needs the OS sandbox (bubblewrap) and it cannot run here: {reason}. A calculation is not run "
              "without it; install bubblewrap (`apt install bubblewrap`) on a system with user namespaces.")
ENV = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8", "HOME": "/tmp"}
TMP_BYTES = 1 << 20


def _limits(cpu_seconds: int) -> None:
    """In the child before exec (after the jail's session and a zero file size): CPU and memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def launch(timeout: float, interpreter: str | None = None) -> jail.Launch:
    """The runner in the smallest jail (run by Whimbrel's Python, or `interpreter`); ToolError when
    bubblewrap cannot run here."""
    if bwrap.available() is None:
        raise ToolError(NO_SANDBOX.format(reason=bwrap.unavailable_reason()))
    program = seccomp.no_spawn_filter()
    python = [interpreter or sys.executable, "-I", str(RUNNER), ",".join(sorted(ALLOWED_MODULES)),
              program.hex() if program else ""]
    started = bwrap.minimal(python, bwrap.python_places(RUNNER, interpreter=interpreter), TMP_BYTES, dict(ENV))
    started.preexec = jail.limiter(max_file_bytes=0, extra=lambda: _limits(int(timeout) + 1))
    return started


async def math(args: dict[str, Any], ctx: ToolContext) -> str:
    code = str(args["code"])
    check(code)
    timeout = min(float(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
    started = launch(timeout)
    try:
        process = await asyncio.create_subprocess_exec(
            *started.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd="/", **started.kwargs())
    finally:
        started.started()
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
