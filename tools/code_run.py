"""run_code's parent side: start tools/code_runner.py in a sandboxed, rate-limited subprocess and serve
its tool calls over a socket pair, one at a time in the order made, through `dispatch`.

The program acts on the world only through `tools.*`: it runs in bubblewrap's smallest jail
(app/sandbox/bwrap.py `minimal`): no workspace, no home, no data or config, no network, only the
system's libraries, Python and the runner, read-only, and a /tmp of 64 MiB; every capability dropped,
its own user and PID namespaces, the seccomp filter, and once the runner has started, no exec and no
new processes (app/sandbox/seccomp.py). The socket to Whimbrel is its only channel. Without bubblewrap
it does not run at all: the model and the user are told why (an in-Python jail is not a sandbox).

Limits: CPU seconds and address space, file size (the /tmp's size), a wall-clock limit that does not
count the time spent in tool calls (an approval may take minutes). The child gets a minimal
environment (no API keys) and its own session, killed as a whole when the run ends, fails or is cancelled.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from app.sandbox import bwrap, jail, seccomp
from tools.errors import ToolError
from tools.truncate import HeadTailBuffer

RUNNER = Path(__file__).with_name("code_runner.py")
DEFAULT_TIMEOUT, MAX_TIMEOUT = 60.0, 600.0
MEMORY_LIMIT = 512 << 20  # bytes of address space
LINE_LIMIT = 8 << 20  # one request line from the program
TMP_LIMIT = 64 << 20  # bytes: the program's private /tmp, and any one file it writes
NO_SANDBOX = ("run_code needs the OS sandbox (bubblewrap) and it cannot run here: {reason}. A program is not "
              "run without it. Call the tools directly instead; to use code mode, install bubblewrap "
              "(`apt install bubblewrap`, `dnf install bubblewrap`) on a system with user namespaces.")
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1",
       "HOME": "/tmp", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

Dispatch = Callable[[str, dict[str, Any]], Awaitable[tuple[str, bool]]]
"""(tool name, arguments) → (result text, is_error): the same pipeline a native call goes through."""
Bindings = Callable[[], dict[str, str]]
"""The API's binding map as it is now (Python path → tool name), for a name the program did not know."""


@dataclass
class CodeLimits:
    """How long and how much a program may run."""

    timeout: float = DEFAULT_TIMEOUT  # seconds of wall time outside tool calls
    memory: int = MEMORY_LIMIT
    output_limit: int = 30_000


@dataclass
class RunOutcome:
    """What a finished program left: its printed output, its result, or the reason it failed."""

    output: str = ""
    result: str | None = None
    error: str | None = None
    calls: int = 0


def _limits(cpu_seconds: int, memory: int) -> Callable[[], None]:
    def apply() -> None:  # in the child before exec, after the jail's session and file-size limits
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return jail.limiter(max_file_bytes=TMP_LIMIT, extra=apply)


def launch(fd: int, limits: CodeLimits) -> jail.Launch:
    """The runner's command in the smallest jail; ToolError when bubblewrap cannot run here."""
    if bwrap.available() is None:
        raise ToolError(NO_SANDBOX.format(reason=bwrap.unavailable_reason()))
    python = [sys.executable, "-I", str(RUNNER), str(fd)]
    started = bwrap.minimal(python, bwrap.python_places(RUNNER), TMP_LIMIT, dict(ENV))
    started.preexec = _limits(int(limits.timeout) + 1, limits.memory)
    started.pass_fds = (*started.pass_fds, fd)
    return started


class CodeRun:
    """One program: start it, answer its calls, enforce the limits, collect what it printed."""

    def __init__(self, code: str, bindings: dict[str, str], dispatch: Dispatch, limits: CodeLimits | None = None,
                 current_bindings: Bindings | None = None) -> None:
        self.code, self.bindings, self.dispatch = code, bindings, dispatch
        self.current_bindings = current_bindings or (lambda: self.bindings)
        self.limits = limits or CodeLimits()
        self.outcome = RunOutcome()
        self._stdout = HeadTailBuffer(self.limits.output_limit)
        self._in_call = False
        self._deadline = 0.0
        self._stopped: str | None = None
        self._done = False  # the program said how it ended
        self.on_output: Callable[[str], None] = lambda _text: None

    async def run(self) -> RunOutcome:
        parent_sock, child_sock = socket.socketpair()
        try:
            started = launch(child_sock.fileno(), self.limits)
            try:
                process = await asyncio.create_subprocess_exec(
                    *started.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE, cwd="/", **started.kwargs())
            finally:
                started.pass_fds = started.pass_fds[:-1]  # the socket is closed below, once
                started.started()
        except BaseException:
            parent_sock.close()
            raise
        finally:
            child_sock.close()
        try:
            return await self._supervise(process, parent_sock)
        finally:
            _kill(process)
            await process.wait()
            parent_sock.close()

    async def _supervise(self, process: asyncio.subprocess.Process, sock: socket.socket) -> RunOutcome:
        no_spawn = seccomp.no_spawn_filter()
        job = {"code": self.code, "bindings": self.bindings, "seccomp": no_spawn.hex() if no_spawn else None}
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(json.dumps(job).encode())
        await process.stdin.drain()
        process.stdin.close()
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=LINE_LIMIT)
        self._deadline = time.monotonic() + self.limits.timeout
        tasks = [asyncio.ensure_future(self._serve(reader, writer)),
                 asyncio.ensure_future(self._collect(process.stdout)),
                 asyncio.ensure_future(process.stderr.read()),
                 asyncio.ensure_future(self._watchdog(process))]
        try:
            await asyncio.wait([tasks[0], tasks[3]], return_when=asyncio.FIRST_COMPLETED)
            if not tasks[3].done():
                await asyncio.wait([tasks[3], asyncio.ensure_future(process.wait())],
                                   return_when=asyncio.FIRST_COMPLETED)
        finally:
            _kill(process)
            for task in (tasks[0], tasks[3]):
                task.cancel()
            await asyncio.gather(*tasks[:3], return_exceptions=True)
            writer.close()
        stderr = tasks[2].result() if tasks[2].done() and not tasks[2].cancelled() else b""
        self.outcome.output = self._stdout.text()
        await process.wait()
        if self.outcome.error is None and self.outcome.result is None and not self._done:
            self.outcome.error = self._failure(process.returncode, stderr.decode(errors="replace"))
        return self.outcome

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer each request line in order; the final line says how the program ended."""
        while True:
            try:
                line = await reader.readline()
            except ValueError:  # a line over the limit: the program is broken or hostile
                self.outcome.error = "run_code: a tool call's arguments were too large (over 8 MiB)"
                return
            if not line:
                return
            try:
                message = json.loads(line)
                assert isinstance(message, dict)
            except (ValueError, AssertionError):
                self.outcome.error = "run_code: the program sent something that is not a tool call"
                return
            if message.get("done"):
                self._done = True
                self.outcome.error = message.get("error")
                self.outcome.result = message.get("result")
                return
            if message.get("bindings"):
                reply = {"id": message.get("id"), "bindings": self.current_bindings()}
            else:
                reply = await self._call(message)
            writer.write(json.dumps(reply).encode() + b"\n")
            await writer.drain()

    async def _call(self, message: dict[str, Any]) -> dict[str, Any]:
        tool, arguments = message.get("tool"), message.get("arguments")
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            return {"id": message.get("id"), "error": "a tool call needs a tool name and keyword arguments"}
        self.outcome.calls += 1
        self._in_call = True
        started = time.monotonic()
        try:
            text, is_error = await self.dispatch(tool, arguments)
        except Exception as exc:  # a bug on Whimbrel's side: the program hears of it, the run goes on
            text, is_error = f"{tool} failed inside Whimbrel: {type(exc).__name__}", True
        finally:
            self._in_call = False
            self._deadline += time.monotonic() - started  # time in tool calls is not the program's
        return {"id": message.get("id"), "error" if is_error else "ok": text}

    async def _collect(self, stdout: asyncio.StreamReader) -> None:
        while chunk := await stdout.read(65536):
            text = chunk.decode(errors="replace")
            self._stdout.append(text)
            self.on_output(text)

    async def _watchdog(self, process: asyncio.subprocess.Process) -> None:
        """Stop the program once it has run past its wall-clock limit (tool calls excluded)."""
        while process.returncode is None:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0 and not self._in_call:
                self._stopped = f"run_code: stopped after {self.limits.timeout:g} s (the time limit)"
                _kill(process)
                return
            await asyncio.sleep(max(remaining, 0.05))

    def _failure(self, returncode: int | None, stderr: str) -> str:
        if self._stopped:
            return self._stopped
        if returncode == -signal.SIGXCPU:
            return f"run_code: stopped at the CPU time limit ({int(self.limits.timeout) + 1} s)"
        if "MemoryError" in stderr or returncode == -signal.SIGKILL:
            return f"run_code: ran out of memory (the limit is {self.limits.memory >> 20} MiB)"
        tail = stderr.strip()[-2000:]
        return f"run_code: the program ended without finishing (status {returncode})" + (f":\n{tail}" if tail else "")


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def report(outcome: RunOutcome) -> str:
    """The text the model gets: printed output and the result; a failure raises ToolError with both."""
    parts = [outcome.output.rstrip()] if outcome.output.strip() else []
    if outcome.error is not None:
        parts.append(outcome.error if not parts else f"--- the program failed:\n{outcome.error}")
        raise ToolError("\n".join(parts))
    if outcome.result is not None:
        parts.append(f"Result: {outcome.result}")
    return "\n".join(parts) or f"(the program printed nothing and returned nothing; {outcome.calls} tool calls)"


def parse_limits(args: dict[str, Any], output_limit: int) -> CodeLimits:
    timeout = args.get("timeout")
    timeout = DEFAULT_TIMEOUT if not isinstance(timeout, (int, float)) or timeout <= 0 else min(float(timeout), MAX_TIMEOUT)
    return CodeLimits(timeout=timeout, output_limit=output_limit)

