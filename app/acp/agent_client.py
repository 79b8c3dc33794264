"""The ACP `Client` Whimbrel offers an external agent: session updates, permission requests, file reads
and writes, and terminals, each confined and judged by Whimbrel (app/acp/offered.py)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from app.acp.offered import Refused


@contextmanager
def _refusals():
    """A refusal reaches the agent as an error answer with the reason."""
    import acp

    try:
        yield
    except Refused as refused:
        raise acp.RequestError.invalid_request({"reason": str(refused)}) from None
    except OSError as error:
        raise acp.RequestError.internal_error({"reason": f"{error.strerror or error}"}) from None


class AgentClient:
    """Routes the agent's calls to its ExternalAgentSession."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.session.on_update(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        chosen = await self.session.ask_permission(tool_call, options)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    # -- fs --------------------------------------------------------------------------------------
    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> Any:
        import acp

        with _refusals():
            return acp.ReadTextFileResponse(content=await self.session.offered.read(path, line, limit))

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        import acp

        with _refusals():
            await self.session.offered.write(path, content)
        return acp.WriteTextFileResponse()

    # -- terminals -------------------------------------------------------------------------------
    async def create_terminal(self, command: str, session_id: str, args: list[str] | None = None,
                              cwd: str | None = None, env: Any = None, output_byte_limit: int | None = None,
                              **kwargs: Any) -> Any:
        from acp.schema import CreateTerminalResponse

        variables = {item.name: item.value for item in env or []}
        with _refusals():
            terminal_id = await self.session.offered.create_terminal(command, list(args or []), cwd, variables,
                                                                     output_byte_limit)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import TerminalExitStatus, TerminalOutputResponse

        with _refusals():
            terminal = self.session.offered.terminal(terminal_id)
        code = terminal.process.returncode
        return TerminalOutputResponse(output=terminal.text(), truncated=terminal.truncated,
                                      exit_status=None if code is None else _exit_status(TerminalExitStatus, code))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        from acp.schema import WaitForTerminalExitResponse

        with _refusals():
            terminal = self.session.offered.terminal(terminal_id)
        return _exit_status(WaitForTerminalExitResponse, await terminal.wait())

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        with _refusals():
            await self.session.offered.terminal(terminal_id).kill()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        await self.session.offered.release(terminal_id)


def _exit_status(kind: Any, code: int) -> Any:
    """A process's return code as ACP says it: an exit code, or the signal's name."""
    import signal

    if code >= 0:
        return kind(exit_code=code)
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return kind(signal=name)
