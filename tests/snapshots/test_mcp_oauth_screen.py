"""The MCP sign-in dialog: its snapshot (snapshots/test_mcp_oauth_screen/), what its keys do, and a whole
sign-in from the dialog to a ready server against the real OAuth test server."""

from __future__ import annotations

import asyncio

import httpx2

from app.mcp.config import ServerConfig
from app.mcp.features import AuthorizationRequest, ClientHooks
from app.mcp.manager import READY, McpManager
from app.tui.screens.mcp_oauth import McpSignInScreen, authorization_hook
from tests.mcp.oauth_server import OAuthMcpServer
from tests.snapshots.screen_host import ScreenHost

SIZE = (100, 26)
URL = ("https://auth.example.com/authorize?response_type=code&client_id=whimbrel-7f3a&redirect_uri=http%3A%2F%2F"
       "127.0.0.1%3A53682%2Fcallback&state=Zx81kQ&code_challenge=mD4v1r&code_challenge_method=S256&scope=notes")


def request(cancelled: list[str] | None = None) -> AuthorizationRequest:
    req = AuthorizationRequest("notes", URL, 300.0)
    if cancelled is not None:
        req.cancel = cancelled.append
    return req


def test_sign_in_dialog(snap_compare) -> None:
    assert snap_compare(ScreenHost(McpSignInScreen(request()), animate=False), terminal_size=SIZE)


async def test_open_browser_then_the_dialog_closes_when_the_sign_in_ends() -> None:
    opened: list[str] = []
    req = request()
    app = ScreenHost(McpSignInScreen(req, opener=opened.append), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert opened == [URL]
        assert "Browser opened" in str(app.screen.query_one("#sign-in-status").render())
        req.finished.set()
        await pilot.pause(0.1)
        assert not isinstance(app.screen, McpSignInScreen)


async def test_escape_cancels_the_sign_in() -> None:
    cancelled: list[str] = []
    app = ScreenHost(McpSignInScreen(request(cancelled)), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert cancelled == ["cancelled in Whimbrel"]
        assert not isinstance(app.screen, McpSignInScreen)


def follow(url: str) -> bool:
    """The browser: the test user approves at once, so following the redirects reaches the callback."""
    with httpx2.Client(follow_redirects=True, timeout=30) as client:
        return client.get(url).status_code == 200


async def test_a_sign_in_from_the_dialog_connects_the_server(tmp_path) -> None:
    server = OAuthMcpServer().start()
    app = ScreenHost(animate=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            manager = McpManager([ServerConfig("secure", transport="http", url=server.url)], data_dir=tmp_path,
                                 refresh_interval=0, hooks=ClientHooks(authorization=authorization_hook(app, follow)))
            manager.start()
            try:
                for _ in range(200):
                    if isinstance(app.screen, McpSignInScreen):
                        break
                    await asyncio.sleep(0.02)
                assert app.screen.request.server == "secure" and manager.status("secure")[0] == "authorizing"
                await pilot.press("enter")
                await manager.wait_ready("secure", 20)
                await pilot.pause(0.1)
                assert not isinstance(app.screen, McpSignInScreen)
                assert manager.status("secure") == (READY, "")
            finally:
                await manager.stop()
    finally:
        server.stop()
