"""Adapter for the official MCP conformance suite: Whimbrel's MCP layer as the client under test.

    npx conformance client --command "python tests/mcp/conformance_client.py" --suite all

The suite appends the scenario's server URL as the last argument and names the scenario in
MCP_CONFORMANCE_SCENARIO. The adapter connects through `McpManager` (streamable HTTP, or SSE for a
URL ending in /sse), lists the tools, calls each with arguments built from its schema, and exits 0
when everything succeeded. Elicitation is accepted with the schema's defaults (SEP-1034).

Authorization goes through Whimbrel's OAuth layer (app/mcp/oauth) with tokens in a temporary data
dir. The browser is played by `follow_headless`, which follows the authorization redirect to
Whimbrel's localhost callback. MCP_CONFORMANCE_CONTEXT stands in for what a user would configure:
a pre-registered client, client credentials (secret or private key), or the enterprise identity
assertion grant, whose ID-JAG the adapter obtains from the scenario's IdP (token exchange, RFC 8693).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.mcp.config import ServerConfig  # noqa: E402
from app.mcp.features import ClientHooks, SamplingResponse, accept_defaults  # noqa: E402
from app.mcp.manager import McpManager  # noqa: E402
from app.mcp.oauth.hooks import follow_headless  # noqa: E402
from app.settings.mcp_oauth import OAuthSettings  # noqa: E402

SAMPLE_VALUES = {"number": 1, "integer": 1, "string": "test", "boolean": True, "array": [], "object": {}}
# The client ID metadata document a client would host (SEP-991); the test server only checks its use.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


def arguments_for(schema: dict) -> dict:
    required = set(schema.get("required", []))
    props = schema.get("properties", {})
    return {name: prop.get("default", SAMPLE_VALUES.get(prop.get("type"), "test"))
            for name, prop in props.items() if name in required or "type" in prop}


async def sample(request):
    return SamplingResponse("conformance sampling answer", model="whimbrel-conformance")


async def authorization_server_of(url: str) -> str:
    """The first authorization server the MCP server's protected resource metadata names."""
    import httpx2
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls

    async with httpx2.AsyncClient(timeout=10) as http:
        for candidate in build_protected_resource_metadata_discovery_urls(None, url):
            response = await http.get(candidate)
            if response.status_code == 200:
                return str(response.json()["authorization_servers"][0])
    raise RuntimeError(f"no protected resource metadata for {url}")


def id_jag_from_idp(context: dict):
    """An assertion provider: trade the IdP's ID token for an ID-JAG for (audience, resource)."""
    async def provide(audience: str, resource: str) -> str:
        import httpx2

        async with httpx2.AsyncClient(timeout=10) as http:
            response = await http.post(context["idp_token_endpoint"], data={
                "grant_type": TOKEN_EXCHANGE, "subject_token": context["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "audience": audience, "resource": resource, "client_id": context["idp_client_id"]})
            response.raise_for_status()
            return response.json()["access_token"]
    return provide


async def oauth_settings(scenario: str, url: str, context: dict) -> OAuthSettings:
    """What a user would put in `[mcp.servers.x.oauth]` for this scenario."""
    if "idp_id_token" in context:  # SEP-990 enterprise-managed authorization
        return OAuthSettings(grant="identity_assertion", client_id=context["client_id"],
                             client_secret=context["client_secret"], issuer=await authorization_server_of(url),
                             token_endpoint_auth_method="client_secret_basic", assertion=id_jag_from_idp(context))
    if "private_key_pem" in context:
        return OAuthSettings(grant="client_credentials", client_id=context["client_id"],
                             private_key=context["private_key_pem"],
                             signing_algorithm=context.get("signing_algorithm") or "RS256")
    if scenario.startswith("auth/client-credentials"):
        return OAuthSettings(grant="client_credentials", client_id=context["client_id"],
                             client_secret=context["client_secret"])
    if "client_id" in context:  # a pre-registered client, browser sign-in
        return OAuthSettings(client_id=context["client_id"], client_secret=context.get("client_secret"))
    return OAuthSettings(client_metadata_url=CIMD_URL)


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    transport = "sse" if url.rstrip("/").endswith("/sse") else "http"
    oauth = await oauth_settings(scenario, url, context) if scenario.startswith("auth/") else None
    with tempfile.TemporaryDirectory(prefix="whimbrel-conformance-") as data_dir:
        manager = McpManager([ServerConfig("conformance", transport=transport, url=url, oauth=oauth)],
                             refresh_interval=0, data_dir=data_dir,
                             hooks=ClientHooks(sampling=sample, elicitation=accept_defaults,
                                               authorization=follow_headless),
                             connect_timeout=90, call_timeout=60)
        manager.start()
        try:
            state = await manager.wait_ready("conformance", 100)
            failures = 0
            for tool in state.tools:
                params = manager.tool_specs()[[t.name for t in state.tools].index(tool.name)].parameters
                try:
                    text, is_error = await manager.call_tool("conformance", tool.name, arguments_for(params))
                except Exception as exc:  # noqa: BLE001
                    print(f"{scenario}: {tool.name} failed: {exc}", file=sys.stderr)
                    failures += 1
                    continue
                print(f"{scenario}: {tool.name} -> {'error: ' if is_error else ''}{text[:200]}")
            return 1 if failures else 0
        except Exception as exc:  # noqa: BLE001
            print(f"{scenario}: {exc}", file=sys.stderr)
            return 1
        finally:
            await manager.stop()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[-1])))
