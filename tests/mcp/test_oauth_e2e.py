"""OAuth end to end: McpManager against a real OAuth-protected MCP server on 127.0.0.1 (tests/mcp/oauth_server.py).

The browser is played by `follow_headless`, which follows the authorization redirect to Whimbrel's
localhost callback over real HTTP. Tests assert outcomes: the server ready with its tools, a tool
answer, the token file, how many sign-ins and refreshes the authorization server saw.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from app.mcp.config import ServerConfig
from app.mcp.features import AuthorizationRequest, ClientHooks, Declined
from app.mcp.manager import AUTHORIZING, FAILED, READY, McpManager, McpUnavailable
from app.mcp.oauth.hooks import follow_headless
from app.settings.mcp_oauth import OAuthSettings
from app.mcp.oauth.store import token_path
from tests.mcp.oauth_server import OAuthMcpServer
from tests.mcp.servers import basic_server

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def oauth_server():
    server = OAuthMcpServer().start()
    yield server
    server.stop()


class Browser:
    """The authorization hook: records each sign-in, then follows it headlessly (or refuses)."""

    def __init__(self, refuse: str | None = None) -> None:
        self.requests: list[AuthorizationRequest] = []
        self.refuse = refuse

    async def __call__(self, request: AuthorizationRequest) -> None:
        self.requests.append(request)
        if self.refuse is not None:
            raise Declined(self.refuse)
        await follow_headless(request)


def manager_for(server: OAuthMcpServer, data_dir, browser, *extra: ServerConfig,
                oauth: OAuthSettings | None = None) -> McpManager:
    config = ServerConfig("secure", transport="http", url=server.url, oauth=oauth)
    return McpManager([config, *extra], data_dir=data_dir, refresh_interval=0, connect_timeout=10,
                      hooks=ClientHooks(authorization=browser))


async def connect(manager: McpManager, name: str = "secure") -> None:
    manager.start()
    await manager.wait_ready(name, 20)


@asynccontextmanager
async def connected(server: OAuthMcpServer, data_dir, browser):
    """A manager for `server`, started and ready (signed in through `browser` when it must be); stopped
    on leaving, whatever happened inside."""
    manager = manager_for(server, data_dir, browser)
    try:
        await connect(manager)
        yield manager
    finally:
        await manager.stop()


async def sign_in_once(server: OAuthMcpServer, data_dir) -> None:
    """A first run: sign in through the browser and stop, leaving the tokens stored."""
    async with connected(server, data_dir, Browser()):
        pass


def age_tokens(data_dir, seconds_ago: float = 60) -> None:
    """Make the stored access token look expired, as after a long pause."""
    path = token_path(data_dir, "secure")
    data = json.loads(path.read_text())
    data["expires_at"] = time.time() - seconds_ago
    path.write_text(json.dumps(data))


async def test_sign_in_then_tools_work_and_the_tokens_are_kept_0600(oauth_server, tmp_path):
    browser = Browser()
    async with connected(oauth_server, tmp_path, browser) as manager:
        assert await manager.call_tool("secure", "whoami", {}) == ("an authorized client", False)
    assert len(browser.requests) == 1 and browser.requests[0].finished.is_set()
    assert browser.requests[0].outcome == ""
    assert browser.requests[0].url.startswith(f"{oauth_server.base}/authorize?")
    path = token_path(tmp_path, "secure")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert stored["tokens"]["access_token"] in oauth_server.provider.access
    # where to refresh after a restart, without discovering again
    assert stored["discovery"]["oauth_metadata"]["token_endpoint"] == f"{oauth_server.base}/token"


async def test_a_restart_reuses_the_stored_tokens_without_a_prompt(oauth_server, tmp_path):
    await sign_in_once(oauth_server, tmp_path)
    never = Browser(refuse="no prompt expected")
    async with connected(oauth_server, tmp_path, never) as second:
        assert second.status("secure")[0] == READY
    assert never.requests == [] and oauth_server.provider.authorizations == 1


async def test_an_expired_access_token_is_refreshed_without_a_prompt(oauth_server, tmp_path):
    await sign_in_once(oauth_server, tmp_path)
    oauth_server.provider.expire_access_tokens()
    age_tokens(tmp_path)
    never = Browser(refuse="no prompt expected")
    async with connected(oauth_server, tmp_path, never) as second:
        assert (await second.call_tool("secure", "whoami", {}))[0] == "an authorized client"
    assert never.requests == []
    assert (oauth_server.provider.authorizations, oauth_server.provider.refreshes) == (1, 1)


async def test_tokens_refresh_during_a_session_when_they_run_out(tmp_path):
    server = OAuthMcpServer(access_ttl=2).start()
    browser = Browser()
    manager = manager_for(server, tmp_path, browser)
    try:
        await connect(manager)
        await asyncio.sleep(2.5)  # the access token expires while connected
        assert (await manager.call_tool("secure", "whoami", {}))[0] == "an authorized client"
    finally:
        await manager.stop()
        server.stop()
    assert len(browser.requests) == 1 and server.provider.refreshes >= 1


async def test_a_failed_refresh_prompts_a_new_sign_in_instead_of_hanging(oauth_server, tmp_path):
    await sign_in_once(oauth_server, tmp_path)
    oauth_server.provider.expire_access_tokens()
    oauth_server.provider.revoke_refresh_tokens()  # as an expired refresh token
    age_tokens(tmp_path)
    browser = Browser()
    second = manager_for(oauth_server, tmp_path, browser)
    try:
        await asyncio.wait_for(connect(second), 60)  # a hang fails here, not at the suite's timeout
    finally:
        await second.stop()
    assert len(browser.requests) == 1 and oauth_server.provider.authorizations == 2


async def test_a_live_connection_whose_tokens_are_revoked_signs_in_again(oauth_server, tmp_path):
    browser = Browser()
    seen: list[tuple[str, str]] = []
    manager = manager_for(oauth_server, tmp_path, browser)
    manager.add_listener(lambda server, what: seen.append(manager.status(server)) if what == "status" else None)
    try:
        await connect(manager)
        oauth_server.provider.expire_access_tokens()
        oauth_server.provider.revoke_refresh_tokens()
        assert (await manager.call_tool("secure", "whoami", {}))[0] == "an authorized client"
        assert manager.status("secure") == (READY, "")
        assert [s.name for s in manager.tool_specs()] == ["mcp__secure__whoami"]  # tools are back
    finally:
        await manager.stop()
    assert len(browser.requests) == 2
    assert [status for status, _ in seen].count(AUTHORIZING) == 2


async def test_a_declined_sign_in_fails_clearly_and_is_not_retried_on_its_own(oauth_server, tmp_path):
    browser = Browser(refuse="you closed the dialog")
    manager = manager_for(oauth_server, tmp_path, browser)
    manager.start()
    try:
        with pytest.raises(McpUnavailable, match="sign-in declined: you closed the dialog"):
            await manager.wait_ready("secure", 20)
        status, reason = manager.status("secure")
        await asyncio.sleep(1.5)  # longer than the breaker's first backoff
        assert status == FAILED and "reconnect to sign in again" in reason
        assert len(browser.requests) == 1
        browser.refuse = None
        await manager.reconnect("secure")  # the user asks again: a new sign-in
        await manager.wait_ready("secure", 20)
    finally:
        await manager.stop()
    assert len(browser.requests) == 2


async def test_the_authorization_server_refusing_is_reported(oauth_server, tmp_path):
    oauth_server.provider.deny = True
    manager = manager_for(oauth_server, tmp_path, Browser())
    manager.start()
    try:
        with pytest.raises(McpUnavailable, match="refused the sign-in: the test user said no"):
            await manager.wait_ready("secure", 20)
    finally:
        await manager.stop()


async def test_waiting_for_a_browser_shows_authorizing_times_out_and_never_blocks_other_servers(
        oauth_server, tmp_path):
    shown: list[AuthorizationRequest] = []

    async def person_away(request: AuthorizationRequest) -> None:
        shown.append(request)  # the URL is shown; nobody signs in

    local = ServerConfig("local", inprocess=basic_server())
    manager = manager_for(oauth_server, tmp_path, person_away, local, oauth=OAuthSettings(timeout=1.5))
    manager.connect_timeout = 1.0  # shorter than the sign-in: the wait for a person does not count
    manager.start()
    try:
        await manager.wait_ready("local", 10)
        for _ in range(200):
            if manager.status("secure")[0] == AUTHORIZING:
                break
            await asyncio.sleep(0.02)
        assert manager.status("secure") == (AUTHORIZING, "sign in through the browser (waiting up to 1.5s)")
        assert [s.name for s in manager.tool_specs() if s.name.startswith("mcp__local__")]
        with pytest.raises(McpUnavailable, match="timed out"):
            await manager.wait_ready("secure", 10)
        assert shown[0].finished.is_set() and "timed out" in shown[0].outcome
    finally:
        await manager.stop()
    assert manager.status("local")[0] in (READY, FAILED)  # FAILED: "stopped"


async def test_stopping_or_reconnecting_ends_a_pending_sign_in_at_once(oauth_server, tmp_path):
    shown: list[AuthorizationRequest] = []

    async def person_away(request: AuthorizationRequest) -> None:
        shown.append(request)

    manager = manager_for(oauth_server, tmp_path, person_away)
    manager.start()
    try:
        while len(shown) < 1:
            await asyncio.sleep(0.02)
        await manager.reconnect("secure")  # a new sign-in replaces the pending one
        while len(shown) < 2:
            await asyncio.sleep(0.02)
        assert shown[0].finished.is_set() and shown[0].outcome == "reconnecting"
        assert manager.status("secure")[0] == AUTHORIZING
    finally:
        await asyncio.wait_for(manager.stop(), 30)  # stopping ends the pending sign-in, never waits it out
    assert shown[1].finished.is_set() and shown[1].outcome == "Whimbrel is stopping"


async def test_signing_out_forgets_the_tokens(oauth_server, tmp_path):
    async with connected(oauth_server, tmp_path, Browser()) as manager:
        assert manager.sign_out("secure") is True
    assert not token_path(tmp_path, "secure").exists()


# four `whimbrel mcp` processes, each importing the MCP SDK: 50-75 s on a loaded 2-core machine, over the
# module's 60 s (each run is bounded by its own 90 s timeout)
@pytest.mark.timeout(400)
def test_the_command_line_signs_in_through_the_browser_and_signs_out(oauth_server, tmp_path):
    """`whimbrel mcp` prints the URL and opens $BROWSER; tokens are kept for the next run until logout."""
    from tests.mcp.test_cli import whimbrel

    config = tmp_path / "config.toml"
    config.write_text(f'[mcp.servers.secure]\nurl = "{oauth_server.url}"\n')
    data = ["--data-dir", str(tmp_path / "data")]
    browser = f"{sys.executable} {Path(__file__).with_name('headless_browser.py')} %s"
    os.environ["BROWSER"] = browser
    try:
        first = whimbrel(*data, "tools", "secure", config=config, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        assert [t["name"] for t in json.loads(first.stdout)] == ["whoami"]
        assert "needs you to sign in" in first.stderr and f"{oauth_server.base}/authorize?" in first.stderr
        os.environ["BROWSER"] = "false %s"  # a second sign-in would fail now
        again = whimbrel(*data, "call", "secure", "whoami", config=config, cwd=tmp_path)
        assert again.returncode == 0 and json.loads(again.stdout)["text"] == "an authorized client"
        out = whimbrel(*data, "logout", "secure", config=config, cwd=tmp_path)
        assert json.loads(out.stdout) == {"server": "secure", "signed_out": True}
        listed = whimbrel(*data, "list", config=config, cwd=tmp_path)
    finally:
        os.environ.pop("BROWSER", None)
    row = json.loads(listed.stdout)[0]
    assert row["status"] == "failed" and "run `whimbrel mcp tools secure` to sign in" in row["reason"]
    assert "Traceback" not in listed.stderr
    assert oauth_server.provider.authorizations == 1


async def test_a_server_that_wants_an_api_key_is_explained_not_signed_in_to(tmp_path):
    from tests.mcp.oauth_server import Unauthorized

    server = Unauthorized().start()
    browser = Browser()
    manager = McpManager([ServerConfig("keyed", transport="http", url=server.url)], data_dir=tmp_path,
                         refresh_interval=0, connect_timeout=10, hooks=ClientHooks(authorization=browser))
    manager.start()
    try:
        with pytest.raises(McpUnavailable, match="offers no OAuth sign-in .* give it credentials in 'headers'"):
            await manager.wait_ready("keyed", 20)
    finally:
        await manager.stop()
        server.stop()
    assert browser.requests == []
