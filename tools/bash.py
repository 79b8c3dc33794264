"""The bash tool: run a command in its own process group, stream its output, kill the group on timeout or cancel.

The command starts from the clean environment (app/sandbox/jail.py: an allow-list, never Whimbrel's API
keys) under its rlimits, inside the sandbox when the gate gives a `wrap_command`, and outside it
otherwise (sandbox off, no bubblewrap, or the user let it run outside once)."""

from __future__ import annotations

import asyncio
import codecs
import os
import signal
from typing import Any

from app.sandbox import jail
from tools.context import ToolContext
from tools.errors import ToolError
from tools.truncate import HeadTailBuffer

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 0.5  # seconds to wait for EOF after bash exits (background jobs may hold the pipe)
CHUNK = 65536


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def kill_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
    """SIGTERM the command's process group, then SIGKILL whatever is left after `grace` seconds."""
    pgid = proc.pid  # start_new_session makes the shell a group leader
    _signal_group(pgid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), grace)
    except asyncio.TimeoutError:
        pass
    _signal_group(pgid, signal.SIGKILL)
    await proc.wait()


class _LineStreamer:
    """Decodes output chunks, keeps them (bounded) and forwards complete lines to the live sink."""

    def __init__(self, ctx: ToolContext) -> None:
        self._sink = ctx.on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self.buffer = HeadTailBuffer(ctx.output_limit)

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._pending + self._decoder.decode(data, final=final)
        cut = len(text) if final else text.rfind("\n") + 1
        if not final and cut == 0 and len(text) >= CHUNK:
            cut = len(text)  # a very long line without newline: pass it on anyway
        ready, self._pending = text[:cut], text[cut:]
        if ready:
            self.buffer.append(ready)
            self._sink(ready)


async def _pump(stream: asyncio.StreamReader, streamer: _LineStreamer) -> None:
    while data := await stream.read(CHUNK):
        streamer.feed(data)


def _status(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"[killed by {name}]"
    return f"[exit code {code}]"


def _join(output: str, status: str) -> str:
    if output and not output.endswith("\n"):
        output += "\n"
    return output + status


async def _open_pipe() -> tuple[int, asyncio.StreamReader, asyncio.ReadTransport]:
    """A pipe whose write end the shell gets as stdout and stderr.

    Our own pipe, not asyncio's PIPE: asyncio's `Process.wait()` also waits for its pipes to
    close, which background jobs (`server &`) can keep open long after the shell exits.
    """
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=CHUNK)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0))
    return write_fd, reader, transport


async def _run(proc: asyncio.subprocess.Process, reader: asyncio.StreamReader, streamer: _LineStreamer) -> str:
    """Wait for the shell and its output; returns an extra note when background jobs kept the pipe open."""
    pump = asyncio.ensure_future(_pump(reader, streamer))
    try:
        await proc.wait()
        await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE)
        return ""
    except asyncio.TimeoutError:
        return "[background processes still hold the output open; later output is not captured]\n"
    finally:
        if not pump.done():
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)


async def bash(args: dict[str, Any], ctx: ToolContext) -> str:
    """Run `args["command"]` with bash in the workspace; raise ToolError on failure or timeout."""
    timeout = float(args.get("timeout") or ctx.bash_timeout)
    write_fd, reader, transport = await _open_pipe()
    try:
        argv = ["bash", "-c", args["command"]]
        launch = ctx.wrap_command(argv) if ctx.wrap_command else jail.plain(argv)
        try:
            proc = await asyncio.create_subprocess_exec(
                *launch.argv, cwd=ctx.workspace, stdin=asyncio.subprocess.DEVNULL, stdout=write_fd, stderr=write_fd,
                **launch.kwargs())  # its own session (the limits' preexec), so the whole group can be killed
        finally:
            launch.started()
    except BaseException:
        transport.close()
        raise
    finally:
        os.close(write_fd)
    streamer = _LineStreamer(ctx)
    try:
        note = await asyncio.wait_for(_run(proc, reader, streamer), timeout)
    except asyncio.TimeoutError:
        await kill_group(proc)
        streamer.feed(b"", final=True)
        raise ToolError(_join(streamer.buffer.text(), f"[timed out after {timeout:g}s; process group killed]")) from None
    except asyncio.CancelledError:
        await kill_group(proc)
        streamer.feed(b"", final=True)  # a last line without its newline still reaches the card
        raise
    finally:
        transport.close()
    streamer.feed(b"", final=True)
    result = _join(streamer.buffer.text(), note + _status(proc.returncode or 0))
    if proc.returncode:
        raise ToolError(result)
    return result
