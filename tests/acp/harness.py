"""The ACP SDK's own client driving `whimbrel acp` as a real subprocess (against the fake model servers)."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

AGENT_ENV_KEYS = ("WHIMBREL_DATA_DIR", "XDG_CONFIG_HOME", "HOME", "PATH", "PYTHONPATH")
DEADLINE = 60.0  # seconds for any one wait: generous on a loaded machine


class RecordingClient:
    """An ACP client that records every session update and answers permission requests with `choice`."""

    def __init__(self, choice: str | None = "allow") -> None:
        self.choice = choice
        self.updates: list[Any] = []
        self.permission_requests: list[Any] = []
        self.changed = asyncio.Event()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        self.permission_requests.append((tool_call, options))
        self._changed()
        if self.choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.choice))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self._changed()

    def _changed(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of_kind(kind))

    async def until(self, predicate, what: str) -> None:
        """Wait for a condition on what arrived so far, failing after DEADLINE with `what`."""
        loop = asyncio.get_running_loop()
        end = loop.time() + DEADLINE
        while not predicate():
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for {what}")
            try:
                await asyncio.wait_for(self.changed.wait(), 0.5)
            except asyncio.TimeoutError:
                pass


@asynccontextmanager
async def whimbrel_acp(client: RecordingClient, workspace: Path, base_url: str, log: Path, *extra: str,
                       capabilities: Any = None):
    """`whimbrel acp` started, initialized (offering `capabilities`), and stopped (its process reaped) on the way out."""
    import acp

    env = {key: os.environ[key] for key in AGENT_ENV_KEYS if key in os.environ}
    with log.open("ab") as stderr:
        async with acp.spawn_agent_process(
                client, sys.executable, "-m", "app.cli", "acp", "--model", "fake-model", "--base-url", base_url,
                "--api-key", "x", *extra, env=env, cwd=workspace,
                transport_kwargs={"stderr": stderr.fileno(), "shutdown_timeout": 10.0}) as (conn, process):
            await asyncio.wait_for(conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                                   client_capabilities=capabilities), DEADLINE)
            yield conn, process


def priced_config(tmp_path: Path, base_url: str) -> Path:
    """A config whose default model `priced` (the fake model) has a price and a window, so usage has a cost."""
    path = tmp_path / "priced.toml"
    path.write_text(f'[model]\ndefault = "priced"\n[models.priced]\nmodel = "fake-model"\nbase_url = "{base_url}"\n'
                    'api_key = "x"\ncontext_window = 32000\nprice = { input = 2.0, output = 8.0 }\n')
    return path
