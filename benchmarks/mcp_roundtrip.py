"""Round trip of N call_tool requests through Whimbrel's MCP layer vs the bare SDK `Client`.

    .venv/bin/python benchmarks/mcp_roundtrip.py [--calls 200]

Two servers: an in-process SDK server and a stdio server (tests/mcp/crashy_server.py's `ok` tool).
Prints the time per call of each and the ratio whimbrel/bare (target <= 1.1), measured in one run,
alternating rounds to spread the machine's noise.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def bare(target, calls: int, tool: str, args: dict) -> float:
    from mcp import Client

    async with Client(target, cache=None) as client:
        await client.call_tool(tool, args)  # warm up
        started = time.perf_counter()
        for _ in range(calls):
            await client.call_tool(tool, args)
        return time.perf_counter() - started


async def whimbrel(config, calls: int, tool: str, args: dict) -> float:
    from app.mcp.manager import McpManager

    manager = McpManager([config], refresh_interval=0)
    manager.start()
    try:
        await manager.wait_ready(config.name, 60)
        await manager.call_tool(config.name, tool, args)
        started = time.perf_counter()
        for _ in range(calls):
            await manager.call_tool(config.name, tool, args)
        return time.perf_counter() - started
    finally:
        await manager.stop()


async def main(calls: int, rounds: int) -> None:
    from mcp import StdioServerParameters

    from app.mcp.config import ServerConfig
    from tests.mcp.servers import basic_server

    script = str(ROOT / "tests" / "mcp" / "crashy_server.py")
    cases = {
        "in-process": (lambda: basic_server(), lambda: ServerConfig("inproc", inprocess=basic_server()),
                       "echo", {"text": "hi"}),
        "stdio": (lambda: StdioServerParameters(command=sys.executable, args=[script]),
                  lambda: ServerConfig("stdio", command=sys.executable, args=[script]), "ok", {}),
    }
    for name, (bare_target, config, tool, args) in cases.items():
        b, w = [], []
        for _ in range(rounds):
            b.append(await bare(bare_target(), calls, tool, args))
            w.append(await whimbrel(config(), calls, tool, args))
        bm, wm = statistics.median(b), statistics.median(w)
        print(f"{name:10s} {calls} calls: bare SDK {bm * 1000 / calls:.3f} ms/call, "
              f"whimbrel {wm * 1000 / calls:.3f} ms/call, ratio {wm / bm:.3f} (target <= 1.1)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    asyncio.run(main(ns.calls, ns.rounds))
