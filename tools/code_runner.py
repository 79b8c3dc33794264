"""The child side of run_code (standard library only): run one program whose `tools.<name>(...)` calls
cross back to Whimbrel over the inherited socket, one JSON line each way per call.

Started by tools/code_run.py inside bubblewrap's smallest jail (no workspace, no network) with rlimits
set; before the program runs it installs the seccomp filter Whimbrel sent (no exec, no new processes:
app/sandbox/seccomp.py) and sets RLIMIT_NPROC 0, and does not run the program if the filter cannot be
installed. It reads {"code", "bindings", "seccomp"} as JSON from stdin and ends by sending
{"done": true, "result": ...} or {"done": true, "error": <traceback>}.
"""

from __future__ import annotations

import ast
import json
import resource
import socket
import sys
import traceback
import types
from typing import Any

FILENAME = "<program>"
RESULT_LIMIT = 10_000


class ToolCallError(Exception):
    """A tool call failed or was refused; the message says why."""


class Channel:
    """The socket to Whimbrel: one request line out, one answer line back."""

    def __init__(self, fd: int) -> None:
        self.sock = socket.socket(fileno=fd)
        self.file = self.sock.makefile("rwb")
        self.count = 0

    def send(self, message: dict[str, Any]) -> None:
        self.file.write(json.dumps(message).encode() + b"\n")
        self.file.flush()

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self.count += 1
        try:
            line = json.dumps({"id": self.count, "tool": tool, "arguments": arguments})
        except (TypeError, ValueError) as exc:
            raise ToolCallError(f"{tool}: the arguments are not JSON data ({exc})") from None
        self.file.write(line.encode() + b"\n")
        self.file.flush()
        answer = self.file.readline()
        if not answer:
            raise ToolCallError(f"{tool}: Whimbrel stopped answering (the run was cancelled)")
        reply = json.loads(answer)
        if "error" in reply:
            raise ToolCallError(reply["error"])
        return str(reply.get("ok", ""))

    def current_bindings(self) -> dict[str, str]:
        """The API as Whimbrel sees it now (a tool found by tool_search or added by an MCP server)."""
        self.count += 1
        self.send({"id": self.count, "bindings": True})
        answer = self.file.readline()
        if not answer:
            raise ToolCallError("Whimbrel stopped answering (the run was cancelled)")
        bindings = json.loads(answer).get("bindings")
        return bindings if isinstance(bindings, dict) else {}


class Namespace:
    """`tools` (and `tools.<server>`): attributes are the bound tools, anything else is refused.

    A name not bound yet is looked up once more in Whimbrel's current API, so a tool that appeared
    during the program (tool_search, an MCP server's new tool) can be called; whether it may run is
    decided by Whimbrel when it is called. The binding map is one dict, shared by every namespace.
    """

    def __init__(self, path: str, bindings: dict[str, str], channel: Channel) -> None:
        self._path, self._bindings, self._channel = path, bindings, channel

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        dotted = f"{self._path}.{name}" if self._path else name
        if not self._knows(dotted):
            fresh = self._channel.current_bindings()
            self._bindings.clear()
            self._bindings.update(fresh)
        if dotted in self._bindings:
            tool, channel = self._bindings[dotted], self._channel

            async def call(arguments: dict[str, Any] | None = None, /, **kwargs: Any) -> str:
                return channel.call(tool, {**(arguments or {}), **kwargs})

            call.__name__ = name
            return call
        if self._knows(dotted):
            return Namespace(dotted, self._bindings, self._channel)
        known = sorted({key.split(".")[0] for key in self._bindings if key.startswith(self._path)})
        raise ToolCallError(f"there is no tool tools.{dotted} in this mode (available: {', '.join(known) or 'none'})")

    def _knows(self, dotted: str) -> bool:
        return dotted in self._bindings or any(key.startswith(dotted + ".") for key in self._bindings)

    def __dir__(self) -> list[str]:
        prefix = self._path + "." if self._path else ""
        return sorted({key[len(prefix):].split(".")[0] for key in self._bindings if key.startswith(prefix)})


def install_filter(program: bytes) -> None:
    """Load the seccomp filter `program` (struct sock_filter array) on this process and its threads.
    bubblewrap already set no-new-privileges, which lets an unprivileged process do this."""
    import ctypes

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS (already set: this cannot fail there)
        raise OSError(ctypes.get_errno(), "no_new_privs")
    # seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC) would also bind threads started before;
    # none exists yet (the loop, if any, starts no thread), so prctl is enough
    if libc.prctl(22, 2, ctypes.byref(Program(len(program) // 8, program)), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter")


def guard(program_hex: str | None) -> None:
    """No new processes and no exec from here on (the filter), where the filter is known."""
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    if program_hex:
        install_filter(bytes.fromhex(program_hex))


def compiled(code: str) -> tuple[Any, bool]:
    """The program with top-level await allowed (a final bare expression becomes its result), and
    whether it needs an event loop."""
    tree = ast.parse(code, FILENAME, "exec")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.copy_location(ast.Assign([ast.Name("__result__", ast.Store())], last.value), last)
        ast.fix_missing_locations(tree)
    return compile(tree, FILENAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT), needs_event_loop(tree)


def _is_tool_call(node: ast.AST) -> bool:
    """`tools.x(...)` or `tools.server.x(...)`: its coroutine never suspends (the call is synchronous)."""
    target = node.func if isinstance(node, ast.Call) else None
    while isinstance(target, ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "tools"


def needs_event_loop(tree: ast.AST) -> bool:
    """Whether the program awaits anything but tool calls; only then is asyncio (most of the runner's
    start-up time) loaded and the program run on a loop."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.AsyncFor, ast.AsyncWith)):
            return True
        if isinstance(node, ast.Await) and not _is_tool_call(node.value):
            return True
    return False


def run_without_loop(coroutine: Any) -> None:
    """Run a program whose awaits are all tool calls: it finishes on the first step."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise RuntimeError("the program awaited something that needs an event loop (await it inside a function "
                       "run with asyncio, or await the tools directly)")


def program_traceback(exc: BaseException) -> str:
    """The traceback of the program's own frames (the runner's are noise to the model)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
    head = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) if frames else ""
    text = head + "".join(traceback.format_exception_only(type(exc), exc))
    if isinstance(exc, MemoryError):
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        text += f"(the program ran out of memory: the limit is {limit >> 20} MiB)" if limit > 0 else ""
    return text.strip()


def main() -> int:
    job = json.loads(sys.stdin.read())
    channel = Channel(int(sys.argv[1]))
    namespace: dict[str, Any] = {"__name__": "__main__", "ToolCallError": ToolCallError,
                                 "tools": Namespace("", job["bindings"], channel)}
    try:
        code, on_a_loop = compiled(job["code"])
    except SyntaxError as exc:
        channel.send({"done": True, "error": "".join(traceback.format_exception_only(exc)).strip()})
        return 1
    loop = None
    if on_a_loop:
        import asyncio

        loop = asyncio.new_event_loop()  # made before the guard: its self-pipe is a socket pair
    try:
        guard(job.get("seccomp"))
    except OSError as exc:
        channel.send({"done": True, "error": f"run_code: the sandbox's process filter could not be installed ({exc})"})
        return 1
    try:
        outcome = eval(code, namespace)  # noqa: S307 - running the model's program is the point
        if isinstance(outcome, types.CoroutineType):
            loop.run_until_complete(outcome) if loop is not None else run_without_loop(outcome)
    except BaseException as exc:  # the program's failure, told to the model as its traceback
        sys.stdout.flush()
        channel.send({"done": True, "error": program_traceback(exc)})
        return 1
    sys.stdout.flush()
    result = namespace.get("__result__")
    channel.send({"done": True, "result": None if result is None else repr(result)[:RESULT_LIMIT]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
