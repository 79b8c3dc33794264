"""A real OAuth-protected MCP server on 127.0.0.1 for the OAuth tests, built with the mcp SDK's server auth.

The SDK serves discovery, dynamic registration, /authorize and /token; `MemoryAuthProvider` keeps
clients, codes and tokens in memory, approves every authorization at once (or refuses, `deny`), and
counts what happened so tests can assert it: registrations, sign-ins, refreshes.
`revoke_refresh_tokens()` makes the next refresh fail, as an expired refresh token would. `Unauthorized`
is the opposite case: a server that answers 401 but has no OAuth at all.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken, AuthorizationCode, AuthorizationParams, AuthorizeError, RefreshToken, construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryAuthProvider:
    """An authorization server that approves at once; `access_ttl` seconds per access token."""

    def __init__(self, access_ttl: int = 3600) -> None:
        self.access_ttl = access_ttl
        self.deny = False
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.authorizations = 0
        self.refreshes = 0
        self.registrations = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.registrations += 1
        self.clients[client_info.client_id or ""] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if self.deny:
            raise AuthorizeError("access_denied", "the test user said no")
        self.authorizations += 1
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["mcp"], expires_at=time.time() + 300, client_id=client.client_id or "",
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(code.code, None)
        return self._issue(client.client_id or "", code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refreshes += 1
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        raise NotImplementedError

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_hex(8)}", f"rt-{secrets.token_hex(8)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + self.access_ttl, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=self.access_ttl,
                          refresh_token=refresh, scope=" ".join(scopes))

    def expire_access_tokens(self) -> None:
        self.access.clear()

    def revoke_refresh_tokens(self) -> None:
        self.refresh.clear()


class AppThread:
    """Serves an ASGI app (with its lifespan) on 127.0.0.1 with uvicorn in a thread; `port` is known
    before the app is built, since OAuth metadata names its own URLs."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def serve(self, app: Any) -> None:
        import uvicorn

        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                                     timeout_graceful_shutdown=1))

    def start(self):
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        self._socket.close()


class OAuthMcpServer(AppThread):
    """An OAuth-protected MCP server (`/mcp`, tool `whoami`) whose authorization server is itself."""

    def __init__(self, access_ttl: int = 3600) -> None:
        super().__init__()
        self.url = f"{self.base}/mcp"
        self.provider = MemoryAuthProvider(access_ttl)
        settings = AuthSettings(
            issuer_url=self.base, resource_server_url=self.url, required_scopes=["mcp"], validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["mcp"],
                                                                   default_scopes=["mcp"]))
        server = MCPServer("oauth-test", auth_server_provider=self.provider, auth=settings, log_level="WARNING")

        @server.tool(description="Who the bearer token belongs to.")
        def whoami() -> str:
            return "an authorized client"

        self.serve(server.streamable_http_app())


class Unauthorized(AppThread):
    """Answers 401 to everything and publishes no OAuth metadata (a server that wants an API key)."""

    def __init__(self) -> None:
        super().__init__()
        from starlette.applications import Starlette
        from starlette.responses import PlainTextResponse
        from starlette.routing import Route

        async def refuse(request: Any) -> PlainTextResponse:
            return PlainTextResponse("an API key is required", status_code=401,
                                     headers={"WWW-Authenticate": 'Bearer realm="api"'})

        self.url = f"{self.base}/mcp"
        self.serve(Starlette(routes=[Route("/{path:path}", refuse, methods=["GET", "POST", "DELETE"])]))
