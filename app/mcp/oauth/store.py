"""Per-server OAuth tokens and client registration in `<data_dir>/mcp-oauth/<server>.json`.

The file is created with mode 0600 in a 0700 directory and replaced atomically on every write. It
records the server URL it belongs to: when the configured URL changes, the old tokens are never sent
to the new server. The access token's absolute expiry is kept too, so after a restart an expired
token is refreshed before it is used instead of being rejected first. Implements the `mcp` SDK's
`TokenStorage` protocol (SDK models are imported on use).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

DIR_NAME = "mcp-oauth"


def token_path(data_dir: Path, server: str) -> Path:
    """Where a server's tokens live (server names are already restricted to [A-Za-z0-9_-])."""
    return Path(data_dir) / DIR_NAME / f"{server}.json"


class TokenStore:
    """Tokens and client registration of one server; `path=None` keeps them in memory only."""

    def __init__(self, path: Path | None, server_url: str) -> None:
        self.path = path
        self.server_url = server_url
        self._memory: dict[str, Any] = {"server_url": server_url}

    # -- the file ------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        """The stored record for this server URL ({} when absent, unreadable or for another URL)."""
        if self.path is None:
            return dict(self._memory)
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"server_url": self.server_url}
        if not isinstance(data, dict) or data.get("server_url") != self.server_url:
            return {"server_url": self.server_url}
        return data

    def write(self, data: dict[str, Any]) -> None:
        """Replace the record atomically: a 0600 temp file in the same 0700 directory, then rename."""
        data = {**data, "server_url": self.server_url}
        if self.path is None:
            self._memory = data
            return
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        temp = folder / f".{self.path.name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def clear(self) -> bool:
        """Forget everything stored for the server (sign out). True when something was removed."""
        if self.path is None:
            had = len(self._memory) > 1
            self._memory = {"server_url": self.server_url}
            return had
        try:
            self.path.unlink()
            return True
        except FileNotFoundError:
            return False

    def forget_client(self) -> None:
        """Drop the client registration (its redirect URI no longer fits); tokens stay."""
        data = self.read()
        if data.pop("client_info", None) is not None:
            self.write(data)

    def registered_port(self) -> int | None:
        """The localhost callback port of the stored client registration, if any."""
        uris = (self.read().get("client_info") or {}).get("redirect_uris") or []
        if not uris:
            return None
        parsed = urlparse(str(uris[0]))
        return parsed.port if parsed.hostname in ("127.0.0.1", "localhost") else None

    async def get_discovery(self) -> dict[str, Any]:
        """What discovery found last time (authorization server and its metadata), for refreshes."""
        found = (await asyncio.to_thread(self.read)).get("discovery")
        return found if isinstance(found, dict) else {}

    async def set_discovery(self, discovery: dict[str, Any]) -> None:
        data = await asyncio.to_thread(self.read)
        data["discovery"] = discovery
        await asyncio.to_thread(self.write, data)

    # -- the SDK's TokenStorage protocol -----------------------------------------------------
    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        data = await asyncio.to_thread(self.read)
        raw = data.get("tokens")
        if not isinstance(raw, dict):
            return None
        raw = dict(raw)
        expires_at = data.get("expires_at")
        if isinstance(expires_at, (int, float)):
            raw["expires_in"] = max(0, int(expires_at - time.time()))  # what is left of it now
        try:
            return OAuthToken.model_validate(raw)
        except ValueError:
            return None

    async def set_tokens(self, tokens: Any) -> None:
        data = await asyncio.to_thread(self.read)
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        data["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        data["saved_at"] = time.time()
        await asyncio.to_thread(self.write, data)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = (await asyncio.to_thread(self.read)).get("client_info")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValueError:
            return None

    async def set_client_info(self, client_info: Any) -> None:
        data = await asyncio.to_thread(self.read)
        data["client_info"] = client_info.model_dump(mode="json", exclude_none=True)
        await asyncio.to_thread(self.write, data)

