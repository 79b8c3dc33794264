"""`whimbrel acp` where the client offers file system or terminal capabilities: the file tools and bash
do their last step through the client (`fs/read_text_file`, `fs/write_text_file`, `terminal/*`).

Nothing else changes: the call was judged and approved before its implementation runs, and its path is
resolved in the workspace exactly as the local tool resolves it; only the disk or the process is the
client's (an editor's unsaved buffer, its own terminal).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import Any, Callable

from tools.context import ToolContext
from tools.edits import plan_edit
from tools.errors import ToolError
from tools.files import edited_message, read_window, wrote_message
from tools.registry import ToolRegistry
from tools.workspace import display_path, resolve_path

Connection = Callable[[], Any]
"""Returns the live `AgentSideConnection` (set once the client connected)."""


def offered(capabilities: Any) -> tuple[bool, bool, bool]:
    """What the client offers: (read text files, write text files, terminals)."""
    fs = getattr(capabilities, "fs", None)
    return (bool(getattr(fs, "read_text_file", False)), bool(getattr(fs, "write_text_file", False)),
            bool(getattr(capabilities, "terminal", False)))


def client_routed(registry: ToolRegistry, capabilities: Any, connection: Connection) -> ToolRegistry:
    """A copy of `registry` whose file tools and bash use what the client offers; the rest unchanged."""
    read, write, terminal = offered(capabilities)
    tools = ClientTools(connection)
    swaps = {}
    if read:
        swaps["read_file"] = tools.read_file
    if write:
        swaps["write_file"] = tools.write_file
    if read and write:
        swaps["edit_file"] = tools.edit_file
    if terminal:
        swaps["bash"] = tools.bash
    routed = ToolRegistry()
    for name in registry.names():
        spec = registry.get(name)
        routed.register(dataclasses.replace(spec, implementation=swaps[name]) if name in swaps else spec)
    return routed


def _said(error: Any) -> str:
    """A client's error answer in words: its message and the reason it gave, if any."""
    data = getattr(error, "data", None)
    reason = data.get("reason") if isinstance(data, dict) else data
    return f"{error} ({reason})" if reason else str(error)


def _status(exit_code: int | None, signal: str | None) -> str:
    return f"[killed by {signal}]" if signal else f"[exit code {exit_code if exit_code is not None else '?'}]"


class ClientTools:
    """The client-side implementations; the ACP session is the call's workstream (an ACP session id)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def _target(self, args: dict[str, Any], ctx: ToolContext) -> tuple[Path, str]:
        path = resolve_path(args["path"], ctx.workspace)[0]
        return path, display_path(path, ctx.workspace)

    async def _load(self, path: Path, label: str, ctx: ToolContext) -> str:
        import acp

        try:
            response = await self.connection().read_text_file(session_id=ctx.workstream_id, path=str(path))
        except acp.RequestError as error:
            raise ToolError(f"The client could not read {label}: {_said(error)}") from None
        return response.content

    async def _save(self, path: Path, label: str, content: str, ctx: ToolContext) -> None:
        import acp

        try:
            await self.connection().write_text_file(session_id=ctx.workstream_id, path=str(path), content=content)
        except acp.RequestError as error:
            raise ToolError(f"The client could not write {label}: {_said(error)}") from None

    async def read_file(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path, label = self._target(args, ctx)
        text = await self._load(path, label, ctx)
        ctx.read_paths.add(path)
        return read_window(text, label, args)

    async def write_file(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path, label = self._target(args, ctx)
        existed = await asyncio.to_thread(path.exists)
        await self._save(path, label, args["content"], ctx)
        ctx.read_paths.add(path)
        return wrote_message(label, args["content"], len(args["content"].encode("utf-8")), existed)

    async def edit_file(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path, label = self._target(args, ctx)
        if path not in ctx.read_paths:
            raise ToolError(f"Read {label} with read_file before editing it, so the edit is based on its current text.")
        text = await self._load(path, label, ctx)
        plan = plan_edit(text, args["old_string"], args["new_string"], near_line=args.get("near_line"),
                         replace_all=bool(args.get("replace_all")), label=label)
        await self._save(path, label, plan.new_text, ctx)
        return edited_message(label, plan)

    async def bash(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """The command in a terminal of the client's; killed there on timeout or cancel, always released."""
        import acp

        conn, session_id = self.connection(), ctx.workstream_id
        timeout = float(args.get("timeout") or ctx.bash_timeout)
        try:
            created = await conn.create_terminal(session_id=session_id, command="bash", args=["-c", args["command"]],
                                                 cwd=str(ctx.workspace), output_byte_limit=ctx.output_limit)
        except acp.RequestError as error:
            raise ToolError(f"The client could not start a terminal: {_said(error)}") from None
        terminal = created.terminal_id
        try:
            await self._show(conn, session_id, ctx.call_id, terminal)
            note, exited = "", None
            try:
                exited = await asyncio.wait_for(conn.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal),
                                       timeout)
            except asyncio.TimeoutError:
                await conn.kill_terminal(session_id=session_id, terminal_id=terminal)
                note = f"[timed out after {timeout:g}s; the client's terminal was killed]"
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await asyncio.shield(conn.kill_terminal(session_id=session_id, terminal_id=terminal))
                raise
            output = await conn.terminal_output(session_id=session_id, terminal_id=terminal)
        except acp.RequestError as error:
            raise ToolError(f"The client's terminal failed: {_said(error)}") from None
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(conn.release_terminal(session_id=session_id, terminal_id=terminal))
        return self._result(output, exited, note)

    @staticmethod
    async def _show(conn: Any, session_id: str, call_id: str, terminal: str) -> None:
        """Attach the terminal to the tool call, so the client shows its output live."""
        import acp
        from acp.schema import TerminalToolCallContent

        if call_id:
            with contextlib.suppress(Exception):
                await conn.session_update(session_id=session_id, update=acp.update_tool_call(
                    call_id, content=[TerminalToolCallContent(type="terminal", terminal_id=terminal)]))

    @staticmethod
    def _result(output: Any, exited: Any, note: str) -> str:
        text = output.output
        if output.truncated:
            text = "[the client kept only the end of the output]\n" + text
        if text and not text.endswith("\n"):
            text += "\n"
        exit_status = exited or output.exit_status
        code = getattr(exit_status, "exit_code", None)
        signal = getattr(exit_status, "signal", None)
        text += note or _status(code, signal)
        if note or signal or code:
            raise ToolError(text)
        return text
