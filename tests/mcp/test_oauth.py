"""OAuth building blocks: the oauth settings in config, the per-server token file, the localhost callback."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest

from app.mcp.config import McpConfigError, load_servers, server_from_dict
from app.mcp.oauth.callback import CallbackServer, SignInError
from app.settings.mcp_oauth import OAuthSettings, effective_oauth
from app.mcp.oauth.store import TokenStore, token_path
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

URL = "https://mcp.example.com/mcp"


# -- settings ------------------------------------------------------------------------------
def test_http_servers_get_oauth_by_default_unless_turned_off_or_carrying_a_token():
    servers, problems = load_servers({
        "plain": {"url": URL},
        "off": {"url": URL, "oauth": False},
        "own-token": {"url": URL, "headers": {"Authorization": "Bearer abc"}},
        "local": {"command": "mcp-server-time"},
    })
    assert problems == []
    on = {name: effective_oauth(c.transport, c.oauth, c.headers) for name, c in servers.items()}
    assert on["plain"] == OAuthSettings()
    assert on["off"] is None and on["own-token"] is None and on["local"] is None


def test_an_oauth_table_configures_a_pre_registered_client_with_expanded_secrets():
    config = server_from_dict("notes", {"url": URL, "oauth": {
        "client_id": "whimbrel-cli", "client_secret": "${NOTES_SECRET}", "scopes": ["read", "write"],
        "redirect_port": 8765, "timeout": 60}}, env={"NOTES_SECRET": "s3cret"})
    oauth = config.oauth
    assert (oauth.client_id, oauth.client_secret, oauth.scope, oauth.redirect_port, oauth.timeout) == \
        ("whimbrel-cli", "s3cret", "read write", 8765, 60.0)
    assert oauth.grant == "authorization_code" and oauth.explicit


def test_mcp_json_camel_case_oauth_keys_are_understood():
    config = server_from_dict("x", {"type": "http", "url": URL,
                                    "oauth": {"clientId": "abc", "callbackPort": 9000}}, env={})
    assert (config.oauth.client_id, config.oauth.redirect_port) == ("abc", 9000)


@pytest.mark.parametrize("oauth, words", [
    ({"grant": "password"}, "'grant' must be one of"),
    ({"grant": "client_credentials"}, "needs 'client_id'"),
    ({"grant": "client_credentials", "client_id": "a"}, "'client_secret' or 'private_key_file'"),
    ({"redirect_port": 70000}, "'redirect_port' must be a port number"),
    ({"client_secret": "s"}, "needs the 'client_id'"),
    ({"colour": "blue"}, "unknown key(s) 'colour'"),
    ("yes", "must be true, false or a table"),
])
def test_bad_oauth_settings_are_reported_with_the_server_and_key(oauth, words):
    with pytest.raises(McpConfigError) as error:
        server_from_dict("notes", {"url": URL, "oauth": oauth}, source="config.toml")
    assert "MCP server 'notes': oauth:" in str(error.value) and words in str(error.value)


def test_config_toml_accepts_oauth_and_points_at_a_bad_key_by_line(tmp_path):
    from app.settings.config import ConfigError, load_config
    from app.mcp.config import servers_from_app_config

    good = tmp_path / "config.toml"
    good.write_text('[mcp.servers.wiki]\nurl = "https://wiki.example.com/mcp"\noauth = false\n\n'
                    '[mcp.servers.notes]\nurl = "https://notes.example.com/mcp"\n\n'
                    '[mcp.servers.notes.oauth]\nclient_id = "whimbrel"\nscope = ["a", "b"]\n')
    servers, problems = servers_from_app_config(load_config(good), None)
    assert problems == [] and servers["wiki"].oauth.enabled is False
    assert (servers["notes"].oauth.client_id, servers["notes"].oauth.scope) == ("whimbrel", "a b")
    bad = tmp_path / "bad.toml"
    bad.write_text('[mcp.servers.notes]\nurl = "https://notes.example.com/mcp"\n\n'
                   '[mcp.servers.notes.oauth]\nclient_ide = "whimbrel"\n')
    with pytest.raises(ConfigError) as error:
        load_config(bad)
    assert "line 4: MCP server 'notes': oauth: unknown key(s) 'client_ide'" in str(error.value)


def test_oauth_on_a_stdio_server_is_an_error():
    with pytest.raises(McpConfigError, match="applies to http and sse servers only"):
        server_from_dict("t", {"command": "mcp-server-time", "oauth": True})


# -- the token file ------------------------------------------------------------------------
def token(access: str = "at-1", expires_in: int | None = 3600) -> OAuthToken:
    return OAuthToken(access_token=access, token_type="Bearer", expires_in=expires_in, refresh_token="rt-1",
                      scope="mcp")


async def test_tokens_are_written_0600_in_a_0700_directory_and_survive_a_restart(tmp_path):
    path = token_path(tmp_path, "notes")
    store = TokenStore(path, URL)
    await store.set_tokens(token())
    await store.set_client_info(OAuthClientInformationFull(client_id="c-1",
                                                           redirect_uris=["http://127.0.0.1:5123/callback"]))
    assert path == tmp_path / "mcp-oauth" / "notes.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["notes.json"]  # no temp file left behind

    again = TokenStore(path, URL)  # a new process: only the file remains
    loaded = await again.get_tokens()
    assert loaded.access_token == "at-1" and loaded.refresh_token == "rt-1"
    assert 3590 <= loaded.expires_in <= 3600
    assert (await again.get_client_info()).client_id == "c-1"
    assert again.registered_port() == 5123


async def test_each_server_has_its_own_file_and_tokens_never_go_to_another_url(tmp_path):
    await TokenStore(token_path(tmp_path, "a"), URL).set_tokens(token("for-a"))
    await TokenStore(token_path(tmp_path, "b"), URL).set_tokens(token("for-b"))
    assert (await TokenStore(token_path(tmp_path, "a"), URL).get_tokens()).access_token == "for-a"
    assert (await TokenStore(token_path(tmp_path, "b"), URL).get_tokens()).access_token == "for-b"
    moved = TokenStore(token_path(tmp_path, "a"), "https://elsewhere.example.com/mcp")
    assert await moved.get_tokens() is None and await moved.get_client_info() is None


async def test_an_expired_token_comes_back_with_no_time_left(tmp_path):
    path = token_path(tmp_path, "notes")
    store = TokenStore(path, URL)
    await store.set_tokens(token())
    data = json.loads(path.read_text())
    data["expires_at"] = time.time() - 60
    store.write(data)
    assert (await store.get_tokens()).expires_in == 0


async def test_sign_out_removes_the_file(tmp_path):
    store = TokenStore(token_path(tmp_path, "notes"), URL)
    await store.set_tokens(token())
    assert store.clear() is True
    assert await store.get_tokens() is None and store.clear() is False


# -- the localhost callback ------------------------------------------------------------------
async def get(url: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as http:
        return await http.get(url)


@asynccontextmanager
async def waiting_for_the_browser(state: str, **server: Any):
    """A started callback server expecting `state`, and a task waiting for the browser to come back;
    yields (the callback URL, the task). The server is closed on leaving."""
    callback = CallbackServer(**server)
    port = await callback.start()
    callback.expect(state)
    try:
        yield f"http://127.0.0.1:{port}/callback", asyncio.create_task(callback.wait(5))
    finally:
        await callback.close()


async def test_the_browser_redirect_delivers_the_code_and_gets_a_page():
    async with waiting_for_the_browser("st-1", server_name="notes") as (callback, waiting):
        response = await get(f"{callback}?code=abc&state=st-1&iss=https%3A%2F%2Fauth")
        result = await waiting
    assert (result.code, result.state, result.iss) == ("abc", "st-1", "https://auth")
    assert response.status_code == 200 and "signed in to notes" in response.text
    assert "text/html" in response.headers["content-type"]


async def test_a_wrong_state_is_rejected_and_the_wait_goes_on():
    async with waiting_for_the_browser("right") as (callback, waiting):
        forged = await get(f"{callback}?code=evil&state=wrong")
        other_path = await get(callback.replace("/callback", "/favicon.ico"))
        assert not waiting.done()
        await get(f"{callback}?code=good&state=right")
        result = await waiting
    assert forged.status_code == 400 and "state mismatch" in forged.text
    assert other_path.status_code == 404
    assert result.code == "good"


async def test_a_denied_sign_in_ends_the_wait_with_the_reason():
    async with waiting_for_the_browser("s") as (callback, waiting):
        page = await get(f"{callback}?error=access_denied&error_description=nope&state=s")
        with pytest.raises(SignInError, match="refused the sign-in: nope"):
            await waiting
    assert "refused the sign-in" in page.text


async def test_an_abandoned_sign_in_times_out_instead_of_hanging():
    server = CallbackServer()
    await server.start()
    try:
        with pytest.raises(SignInError, match="timed out"):
            await asyncio.wait_for(server.wait(0.3), 30)  # its own 0.3 s must end it, not this bound
    finally:
        await server.close()


async def test_a_taken_port_is_a_clear_error():
    first = CallbackServer()
    port = await first.start()
    try:
        with pytest.raises(SignInError, match=f"cannot listen on 127.0.0.1:{port}"):
            await CallbackServer(port).start()
    finally:
        await first.close()
