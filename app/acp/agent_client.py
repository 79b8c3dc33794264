"""The ACP `Client` Whimbrel offers an external agent: session updates, permission requests, and file
reads and writes confined to the workspace (terminals are not offered)."""

from __future__ import annotations

import asyncio
from typing import Any


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

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> Any:
        import acp

        target = self._confined(path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8", errors="replace")
        except OSError as error:
            raise acp.RequestError.resource_not_found(str(target)) from error
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start:start + limit] if limit is not None else lines[start:])
        return acp.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        import acp

        target = self._confined(path)
        await asyncio.to_thread(lambda: (target.parent.mkdir(parents=True, exist_ok=True),
                                         target.write_text(content, encoding="utf-8")))
        return acp.WriteTextFileResponse()

    def _confined(self, path: str):
        import acp

        try:
            return self.session.confined(path)
        except PermissionError as error:
            raise acp.RequestError.invalid_params({"path": path, "reason": str(error)}) from None
