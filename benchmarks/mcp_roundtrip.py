"""Round trip of N call_tool requests through Whimbrel's MCP layer vs the bare SDK `Client`.

    .venv/bin/python benchmarks/mcp_roundtrip.py [--calls 200]

Two servers: an in-process SDK server and a stdio server (tests/mcp/crashy_server.py's `ok` tool).
Both are connected for the whole run and timed in alternating batches of N calls (order swapped
every round), so the machine's noise hits both alike. Prints the median time per call of each and
the ratio whimbrel/bare (target <= 1.1); Whimbrel's calls include turning the result into the
model's text and the protocol log.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANAGER_OPTIONS: dict = {}
sys.path.insert(0, str(ROOT))


async def timed(call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await call()
    return time.perf_counter() - started


async def compare(bare_target, config, tool: str, args: dict, calls: int, rounds: int) -> tuple[float, float]:
    """Median seconds for `calls` calls, bare SDK vs Whimbrel, both connected for the whole run and
    measured in alternating batches (order swapped every round), so machine noise hits both alike."""
    from mcp import Client

    from app.mcp.manager import McpManager

    manager = McpManager([config], refresh_interval=0, **MANAGER_OPTIONS)
    manager.start()
    try:
        async with Client(bare_target, cache=None) as client:
            await manager.wait_ready(config.name, 60)
            bare_call = lambda: client.call_tool(tool, args)  # noqa: E731
            ours = lambda: manager.call_tool(config.name, tool, args)  # noqa: E731
            await timed(bare_call, 20)  # warm up both (the bare client lists tools on its first call)
            await timed(ours, 20)
            b, w = [], []
            for round_ in range(rounds):
                pair = [(b, bare_call), (w, ours)]
                for samples, call in (pair if round_ % 2 == 0 else pair[::-1]):
                    samples.append(await timed(call, calls))
            return statistics.median(b), statistics.median(w)
    finally:
        await manager.stop()


async def main(calls: int, rounds: int) -> None:
    from mcp import StdioServerParameters

    from app.mcp.config import ServerConfig
    from tests.mcp.servers import basic_server

    script = str(ROOT / "tests" / "mcp" / "crashy_server.py")
    cases = {
        "in-process": (basic_server(), ServerConfig("inproc", inprocess=basic_server()), "echo", {"text": "hi"}),
        "stdio": (StdioServerParameters(command=sys.executable, args=[script]),
                  ServerConfig("stdio", command=sys.executable, args=[script]), "ok", {}),
    }
    for name, (bare_target, config, tool, args) in cases.items():
        bm, wm = await compare(bare_target, config, tool, args, calls, rounds)
        print(f"{name:10s} {calls} calls x {rounds} rounds: bare SDK {bm * 1000 / calls:.3f} ms/call, "
              f"whimbrel {wm * 1000 / calls:.3f} ms/call, ratio {wm / bm:.3f} (target <= 1.1)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    ns = parser.parse_args()
    asyncio.run(main(ns.calls, ns.rounds))
