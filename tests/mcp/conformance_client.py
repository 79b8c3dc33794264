"""Adapter for the official MCP conformance suite: Whimbrel's MCP layer as the client under test.

    npx conformance client --command "python tests/mcp/conformance_client.py" --suite all

The suite appends the scenario's server URL as the last argument and names the scenario in
MCP_CONFORMANCE_SCENARIO. The adapter connects through `McpManager` (streamable HTTP, or SSE for a
URL ending in /sse), lists the tools, calls each with arguments built from its schema, and exits 0
when everything succeeded. Elicitation is accepted with the schema's defaults (SEP-1034).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.mcp.config import ServerConfig  # noqa: E402
from app.mcp.features import ClientHooks, SamplingResponse, accept_defaults  # noqa: E402
from app.mcp.manager import McpManager  # noqa: E402

SAMPLE_VALUES = {"number": 1, "integer": 1, "string": "test", "boolean": True, "array": [], "object": {}}


def arguments_for(schema: dict) -> dict:
    required = set(schema.get("required", []))
    props = schema.get("properties", {})
    return {name: prop.get("default", SAMPLE_VALUES.get(prop.get("type"), "test"))
            for name, prop in props.items() if name in required or "type" in prop}


async def sample(request):
    return SamplingResponse("conformance sampling answer", model="whimbrel-conformance")


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    transport = "sse" if url.rstrip("/").endswith("/sse") else "http"
    manager = McpManager([ServerConfig("conformance", transport=transport, url=url)], refresh_interval=0,
                         hooks=ClientHooks(sampling=sample, elicitation=accept_defaults),
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
