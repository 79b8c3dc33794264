"""An ACP client that offers its own file system and terminals, as an editor does, and records their use.

Its files live in memory (an editor's buffers: nothing reaches the disk), and its terminals are real
processes started with WHIMBREL_TEST_SIDE=client in their environment, so a test can tell where a
command ran. Every terminal is reaped when released or when the client closes.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from tests.acp.harness import RecordingClient

SIDE_VARIABLE = "WHIMBREL_TEST_SIDE"


class _Terminal:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.output = bytearray()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while chunk := await self.process.stdout.read(4096):
            self.output.extend(chunk)

    async def wait(self) -> int:
        code = await self.process.wait()
        await self.reader
        return code

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        await self.wait()


class DeviceClient(RecordingClient):
    """RecordingClient plus fs/read_text_file, fs/write_text_file and the terminal methods."""

    def __init__(self, choice: str | None = "allow", files: dict[str, str] | None = None) -> None:
        super().__init__(choice)
        self.files: dict[str, str] = dict(files or {})
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.commands: list[tuple[str, list[str], str | None]] = []
        self.terminals: dict[str, _Terminal] = {}
        self.released: list[str] = []

    @staticmethod
    def capabilities(*, fs: bool = True, terminal: bool = True) -> Any:
        from acp.schema import ClientCapabilities, FileSystemCapabilities

        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal)

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> Any:
        import acp

        self.reads.append(path)
        if path not in self.files:
            raise acp.RequestError.resource_not_found(path)
        return acp.ReadTextFileResponse(content=self.files[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        import acp

        self.writes.append((path, content))
        self.files[path] = content
        return acp.WriteTextFileResponse()

    async def create_terminal(self, command: str, session_id: str, args: list[str] | None = None,
                              cwd: str | None = None, env: Any = None, output_byte_limit: int | None = None,
                              **kwargs: Any) -> Any:
        from acp.schema import CreateTerminalResponse

        self.commands.append((command, list(args or []), cwd))
        process = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env={**os.environ, SIDE_VARIABLE: "client"},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        terminal_id = f"t{len(self.commands)}"
        self.terminals[terminal_id] = _Terminal(process)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import WaitForTerminalExitResponse

        return WaitForTerminalExitResponse(exit_code=await self.terminals[terminal_id].wait())

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import TerminalExitStatus, TerminalOutputResponse

        terminal = self.terminals[terminal_id]
        code = terminal.process.returncode
        return TerminalOutputResponse(output=terminal.output.decode(errors="replace"), truncated=False,
                                      exit_status=TerminalExitStatus(exit_code=code) if code is not None else None)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        await self.terminals[terminal_id].kill()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.released.append(terminal_id)
        await self.terminals.pop(terminal_id).kill()

    async def aclose(self) -> None:
        """Reap every terminal still open (the agent went away without releasing it)."""
        for terminal in self.terminals.values():
            await terminal.kill()
        self.terminals.clear()
