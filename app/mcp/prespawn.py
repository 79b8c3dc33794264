"""A stdio server started before the SDK is imported, for the one-shot `whimbrel mcp VERB`: the server's own
start-up (a second or so for a Python server) runs while Whimbrel imports the SDK, instead of after it.

`spawn` starts the server as the SDK would (the same environment, working directory, status-reporting wrapper,
its own session and so process group, stderr into the server's temp file); `prespawned_stdio` is the transport
over its pipes, newline-delimited JSON-RPC as the SDK's stdio client speaks it. At the end its stdin is closed,
it has a grace period to exit, then its process group is ended (app/mcp/stdio_exit.py); it is always reaped.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from app.mcp.config import ServerConfig, stdio_environment
from app.mcp.stdio_exit import TERM_GRACE, end_process_group, wrapped_command

EXIT_GRACE = 2.0  # seconds for the server to exit once its stdin is closed (the SDK's own grace)
LINE_LIMIT = 64 * 1024 * 1024  # bytes in one message


def spawn(config: ServerConfig, workspace: Path, stderr: Any) -> subprocess.Popen | None:
    """Start the stdio server now; None when it cannot start here (the SDK's path then says why)."""
    if config.transport != "stdio" or config.inprocess is not None or not config.command:
        return None
    cwd = Path(config.cwd).expanduser() if config.cwd else workspace
    if not cwd.is_absolute():
        cwd = workspace / cwd
    env = stdio_environment(config)
    command, args = wrapped_command(config.command, list(config.args), env.get("PATH"))
    try:
        return subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                env=env, cwd=str(cwd), start_new_session=True)
    except (OSError, ValueError):
        return None


@asynccontextmanager
async def prespawned_stdio(process: subprocess.Popen) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) of SDK session messages over the started process's stdout and stdin."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    reading, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), process.stdout)
    pipe, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, process.stdin)
    writer = asyncio.StreamWriter(pipe, protocol, None, loop)
    read_sender, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_receiver = anyio.create_memory_object_stream(0)

    async def from_server() -> None:
        async with read_sender:
            while line := await reader.readline():
                if not line.strip():
                    continue
                try:
                    message: Any = SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
                except ValueError as error:  # the session reports it
                    message = error
                try:
                    await read_sender.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async def to_server() -> None:
        async with write_receiver:
            async for sent in write_receiver:
                data = sent.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                try:
                    writer.write(data.encode())
                    await writer.drain()
                except (OSError, ConnectionError):
                    await read_sender.aclose()  # the server is gone: the session sees the end
                    return

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(from_server)
        tasks.start_soon(to_server)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process, writer)
            reading.close()  # closes the server's stdout (closing the pipe under the transport would be an error)
            tasks.cancel_scope.cancel()


async def discard(process: subprocess.Popen) -> None:
    """End a started server no connection took up (the handshake never began); reap it."""
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()
    await end_process_group(process.pid)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EXIT_GRACE
    while process.poll() is None and loop.time() < deadline:
        await asyncio.sleep(0.02)


def discard_now(process: subprocess.Popen) -> None:
    """`discard` without an event loop, for a failure between the start and the connection: SIGTERM to the
    group, SIGKILL if it is still there after TERM_GRACE; reaped."""
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(timeout=TERM_GRACE)
            return
        except subprocess.TimeoutExpired:
            continue


async def _stop(process: subprocess.Popen, writer: asyncio.StreamWriter) -> None:
    """Close stdin, give the server EXIT_GRACE to exit, then end its process group; reap it."""
    try:
        writer.close()
    except (OSError, RuntimeError):
        pass
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EXIT_GRACE
    while process.poll() is None and loop.time() < deadline:
        await asyncio.sleep(0.02)
    if process.poll() is None:
        await end_process_group(process.pid)  # start_new_session: its pid names its group
        while process.poll() is None and loop.time() < deadline + 2.0:
            await asyncio.sleep(0.02)
