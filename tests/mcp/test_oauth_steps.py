"""The OAuth steps the inspector shows, recorded while a real sign-in and a refresh happen against the
OAuth-protected test server (tests/mcp/oauth_server.py): each stage in order, secrets redacted."""

from __future__ import annotations

import pytest

from tests.mcp.test_oauth_e2e import Browser, age_tokens, connected, oauth_server, sign_in_once  # noqa: F401

pytestmark = pytest.mark.timeout(60)


async def test_each_step_of_a_sign_in_is_recorded_in_order_with_secrets_redacted(oauth_server, tmp_path):  # noqa: F811
    async with connected(oauth_server, tmp_path, Browser()) as manager:
        assert (await manager.call_tool("secure", "whoami", {}))[0] == "an authorized client"
        steps = list(manager.servers["secure"].oauth_steps.steps)
    stages = [s.stage for s in steps]
    assert stages[0] == "MCP request: sign-in needed" and steps[0].status == 401
    for expected in ("discovery: protected resource metadata", "discovery: authorization server metadata",
                     "registration", "authorization: sign in through the browser",
                     "authorization: the browser came back", "token exchange (authorization code)"):
        assert expected in stages, (expected, stages)
    order = [stages.index(s) for s in ("registration", "authorization: sign in through the browser",
                                       "token exchange (authorization code)")]
    assert order == sorted(order)
    assert stages[-1] == "MCP request" and steps[-1].status == 200  # the request that needed it, now signed in
    # plain requests after the sign-in are not steps
    assert stages.count("MCP request") == 1
    token = next(s for s in steps if s.stage.startswith("token exchange"))
    assert token.method == "POST" and token.status == 200 and token.url == f"{oauth_server.base}/token"
    assert "grant_type = authorization_code" in token.request and "code = (redacted," in token.request
    assert '"access_token": "(redacted,' in token.response
    for secret in oauth_server.provider.access:
        assert all(secret not in s.request + s.response + s.url for s in steps)
    discovery = next(s for s in steps if s.stage == "discovery: authorization server metadata")
    assert f'"token_endpoint": "{oauth_server.base}/token"' in discovery.response


async def test_a_refresh_is_a_step(oauth_server, tmp_path):  # noqa: F811
    await sign_in_once(oauth_server, tmp_path)
    oauth_server.provider.expire_access_tokens()
    age_tokens(tmp_path)
    async with connected(oauth_server, tmp_path, Browser(refuse="no prompt expected")) as second:
        stages = [s.stage for s in second.servers["secure"].oauth_steps.steps]
    assert "refresh" in stages and "authorization: sign in through the browser" not in stages
