"""One running external ACP agent: its process, the SDK connection, and why it stopped if it did.

The agent's stderr is read all along (so it never blocks) and its last lines kept: when the agent
exits mid-turn, the reason shown is its exit code and what it said last.
"""

from __future__ import annotations

import asyncio
import collections
import os
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

START_TIMEOUT = 30.0  # seconds for the agent to start and answer initialize / session/new
STDERR_LINES = 20


class AgentFailed(Exception):
    """The agent could not start, stopped answering, exited or broke the protocol; the message says which."""


class AgentConnection:
    """Start the agent's process, initialize ACP, and close it all (the process reaped) in `aclose`."""

    def __init__(self, name: str, command: str, args: list[str], env: dict[str, str], cwd: Path,
                 client: Any) -> None:
        self.name, self.command, self.args, self.env, self.cwd = name, command, args, env, cwd
        self.client = client
        self.conn: Any = None
        self.process: Any = None
        self.capabilities: Any = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._stack = AsyncExitStack()
        self._stderr_reader: asyncio.Task | None = None

    async def start(self, timeout: float | None = None) -> None:
        import acp
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        if not self.command:
            raise AgentFailed(f"agent {self.name} is not configured any more: add [agents.{self.name}] with its "
                              "command to config.toml")
        env = {**os.environ, **self.env}
        try:
            self.conn, self.process = await self._stack.enter_async_context(acp.spawn_agent_process(
                self.client, self.command, *self.args, env=env, cwd=self.cwd,
                transport_kwargs={"shutdown_timeout": 5.0}))
        except OSError as error:
            await self.aclose()
            raise AgentFailed(f"agent {self.name} could not be started ({self.command}): "
                              f"{error.strerror or error}") from None
        self._stderr_reader = asyncio.create_task(self._read_stderr())
        capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                                          terminal=True)
        response = await self.call(self.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities,
            client_info=Implementation(name="whimbrel", version="0.1.0")), "initialize", timeout or START_TIMEOUT)
        self.capabilities = response.agent_capabilities

    @property
    def can_load(self) -> bool:
        return bool(self.capabilities is not None and self.capabilities.load_session)

    async def call(self, request, what: str, timeout: float | None = None):
        """Await one request to the agent, failing in words when the agent exits, hangs or errs."""
        request = asyncio.ensure_future(request)
        exited = asyncio.ensure_future(self.process.wait())
        try:
            done, _ = await asyncio.wait([request, exited], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            request.cancel()
            raise
        finally:
            exited.cancel()
        dropped = request in done and not request.cancelled() and isinstance(request.exception(), ConnectionError)
        if request in done and not dropped:
            return self._result(request, what)
        request.cancel()
        if not done:
            raise AgentFailed(f"agent {self.name} did not answer {what} within {timeout:g} s")
        await self._settle()
        raise AgentFailed(self.exit_reason(what))

    async def _settle(self, grace: float = 3.0) -> None:
        """After the connection dropped: give the process a moment to exit and its last words to arrive."""
        waits = [asyncio.ensure_future(self.process.wait())]
        if self._stderr_reader is not None:
            waits.append(self._stderr_reader)
        await asyncio.wait(waits, timeout=grace)
        waits[0].cancel()

    def _result(self, request: asyncio.Future, what: str):
        import acp

        try:
            return request.result()
        except acp.RequestError as error:
            detail = f": {error.data}" if getattr(error, "data", None) else ""
            raise AgentFailed(f"agent {self.name} refused {what} ({error}){detail}") from None
        except Exception as error:  # noqa: BLE001 - a malformed answer (validation) and the like
            raise AgentFailed(f"agent {self.name} sent a reply to {what} that Whimbrel cannot read: "
                              f"{type(error).__name__}: {str(error).splitlines()[0][:200]}") from None

    def exit_reason(self, what: str) -> str:
        code = self.process.returncode if self.process is not None else None
        said = " | ".join(line for line in self.stderr_tail if line.strip())[-400:]
        status = f"exited with code {code}" if code is not None else "closed its connection"
        return f"agent {self.name} {status} during {what}" + (f"; it said: {said}" if said else "")

    async def _read_stderr(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        while line := await stream.readline():
            self.stderr_tail.append(line.decode(errors="replace").rstrip())

    async def aclose(self) -> None:
        """Close stdin, give the agent a moment to exit, then terminate or kill it; always reaped.

        Cancelling this (the app quitting) kills the process at once instead of leaving it behind."""
        if self._stderr_reader is not None:
            self._stderr_reader.cancel()
        closing = asyncio.ensure_future(self._stack.aclose())
        try:
            await asyncio.shield(closing)
        except asyncio.CancelledError:
            if self.process is not None and self.process.returncode is None:
                self.process.kill()
            raise
        except Exception:  # noqa: BLE001 - a process already gone: nothing left to close
            pass
