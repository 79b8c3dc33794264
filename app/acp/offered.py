"""What Whimbrel offers an external agent on its own side: file reads and writes, and terminals.

Each request passes the workstream's confinement (paths and the terminal's cwd inside the workspace)
and its permission gate (rules, mode, risk) like a call of Whimbrel's own `read_file`, `write_file` or
`bash`; what the gate would ask goes to Whimbrel's approval modal, unless the user already approved the
agent's own permission request for a tool call that is still running (the agent asks first, then
writes: one question, not two). A terminal runs in Whimbrel's sandbox when the workstream has one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.sandbox import jail
from tools.workspace import resolve_path


class Refused(Exception):
    """The request leaves the workspace or the gate (or the user) refused it; the message says why."""


@dataclass
class Terminal:
    """One command the agent started: its process and the end of its output (at most `limit` bytes)."""

    process: asyncio.subprocess.Process
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task | None = None

    async def read(self) -> None:
        while chunk := await self.process.stdout.read(65536):
            self.output.extend(chunk)
            if self.limit is not None and len(self.output) > self.limit:
                del self.output[:len(self.output) - self.limit]
                self.truncated = True

    def text(self) -> str:
        return bytes(self.output).decode("utf-8", errors="ignore" if self.truncated else "replace")

    async def wait(self) -> int:
        code = await self.process.wait()
        if self.reader is not None:
            await self.reader
        return code

    async def kill(self) -> None:
        from tools.bash import kill_group

        if self.process.returncode is None:
            await kill_group(self.process)
        await self.wait()


class Offered:
    """The agent's fs/terminal requests for one ExternalAgentSession (its workspace, guard and turn)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.terminals: dict[str, Terminal] = {}
        self._made = 0

    # -- the gate ---------------------------------------------------------------------------
    def _inside(self, raw: str) -> Path:
        workspace = self.session.tool_context.workspace
        path, inside = resolve_path(raw, workspace)
        if not inside:
            raise Refused(f"{raw} is outside the workspace {workspace}")
        return path

    async def _permit(self, tool: str, args: dict[str, Any], paths: list[Path], preview: str, diff: str = "",
                      read_only: bool = False) -> Any:
        """The gate's verdict on the request; an 'ask' goes to the modal. Refused when it may not run."""
        from app.permissions.gate import CallView

        primary = "command" if tool == "bash" else "path"
        verdict = self.session.guard.gate.decide(CallView(tool, args, paths, read_only=read_only, primary=primary))
        if verdict.outcome == "deny":
            raise Refused(f"Whimbrel's permissions refuse this: {verdict.why}")
        if verdict.outcome == "ask" and not self._covered():
            record = self.session.current_record
            if record is None or not await record.approve(tool, preview, diff, verdict.why):
                raise Refused(f"the user did not allow {tool} {preview}".rstrip())
        return verdict

    def _covered(self) -> bool:
        record = self.session.current_record
        return record is not None and record.approved_call_running()

    # -- files --------------------------------------------------------------------------------
    async def read(self, raw: str, line: int | None, limit: int | None) -> str:
        path = self._inside(raw)
        await self._permit("read_file", {"path": raw}, [path], raw, read_only=True)
        text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start:start + limit] if limit is not None else lines[start:])
        return text

    async def write(self, raw: str, content: str) -> None:
        from tools.preview import unified_diff
        from tools.textfile import existing_text

        path = self._inside(raw)
        old = await asyncio.to_thread(existing_text, path)
        label = os.path.relpath(path, self.session.tool_context.workspace)
        await self._permit("write_file", {"path": raw, "content": content}, [path], label,
                           unified_diff(old, content, label))

        def write() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        await asyncio.to_thread(write)

    # -- terminals ----------------------------------------------------------------------------
    async def create_terminal(self, command: str, args: list[str], cwd: str | None, env: dict[str, str],
                              limit: int | None) -> str:
        workdir = self._inside(cwd) if cwd else self.session.tool_context.workspace
        line = args[1] if command in ("bash", "sh") and len(args) == 2 and args[0] == "-c" \
            else shlex.join([command, *args])
        verdict = await self._permit("bash", {"command": line}, [], line)
        wrapper = self.session.guard.wrapper("bash", verdict.network)
        launch = wrapper([command, *args]) if wrapper is not None else jail.plain([command, *args])
        launch.env = {**launch.env, **env}  # the clean environment (no API keys), plus what the agent asked for
        try:
            process = await asyncio.create_subprocess_exec(
                *launch.argv, cwd=workdir, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, **launch.kwargs())  # its own session: the limits' preexec
        except OSError as error:
            raise Refused(f"{command} could not be started: {error.strerror or error}") from None
        finally:
            launch.started()
        self._made += 1
        terminal_id = f"whimbrel-terminal-{self._made}"
        terminal = Terminal(process, limit)
        terminal.reader = asyncio.ensure_future(terminal.read())
        self.terminals[terminal_id] = terminal
        return terminal_id

    def terminal(self, terminal_id: str) -> Terminal:
        terminal = self.terminals.get(terminal_id)
        if terminal is None:
            raise Refused(f"no terminal {terminal_id} (released, or never created)")
        return terminal

    async def release(self, terminal_id: str) -> None:
        terminal = self.terminals.pop(terminal_id, None)
        if terminal is not None:
            await terminal.kill()

    async def close(self) -> None:
        """Every terminal the agent left open is killed and reaped (the agent stopped or the app quits)."""
        terminals, self.terminals = list(self.terminals.values()), {}
        for terminal in terminals:
            with contextlib.suppress(Exception):
                await asyncio.shield(terminal.kill())
