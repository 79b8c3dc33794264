"""`whimbrel run` and `whimbrel acp` beside the bare SDK doing the same request; prints the ratios.

Each measurement is the wall time of a fresh process (imports included, as a script in CI pays them), and
beside it the CPU time (user + system) that process used: on a machine shared with other work the wall time
mostly measures the queue for a core, the CPU time what the process itself did.

- bare:  `python -c` with the openai SDK streaming one short reply from the fake server;
- run:   `whimbrel run "hi"` (config, store, session, the same streamed request, stored);
- acp:   the ACP SDK's client starting `whimbrel acp`, initialize, session/new, one prompt round trip.

Targets: run / bare ≤ 1.3 (wall); acp / run is reported. Machines here are noisy: every ratio is the median
of ROUNDS runs measured in the same loop.

    python benchmarks/headless.py [--rounds N] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BARE = """
import sys
from openai import OpenAI
client = OpenAI(base_url=sys.argv[1], api_key="x")
stream = client.chat.completions.create(model="fake-model", stream=True,
                                        messages=[{"role": "user", "content": "hi"}])
print("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # of the processes ended and reaped so far
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True, timeout=120,
                   stdin=subprocess.DEVNULL)
    return time.perf_counter() - start, children_cpu() - cpu


async def acp_round_trip(base_url: str, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    import acp

    class Quiet:
        async def session_update(self, session_id, update, **kwargs):
            pass

        async def request_permission(self, *args, **kwargs):
            raise RuntimeError("no tool calls in this benchmark")

    start, cpu = time.perf_counter(), children_cpu()
    async with acp.spawn_agent_process(Quiet(), sys.executable, "-m", "app.cli", "acp", "--model", "fake-model",
                                       "--base-url", base_url, "--api-key", "x", env=env, cwd=cwd,
                                       transport_kwargs={"shutdown_timeout": 30.0}) as (conn, _p):
        # a loaded machine needs more than the SDK's default seconds for the agent to exit after stdin closes
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
    return time.perf_counter() - start, children_cpu() - cpu  # the agent has been reaped on the way out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    options = parser.parse_args()
    rounds = 1 if options.smoke else options.rounds
    from tests.fake_llm.openai_server import FakeOpenAIServer

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        work = Path(tmp) / "ws"
        work.mkdir()
        env = {**os.environ, "WHIMBREL_DATA_DIR": str(Path(tmp) / "data"), "XDG_CONFIG_HOME": str(Path(tmp) / "cfg"),
               "PYTHONPATH": str(ROOT)}
        run = [sys.executable, "-m", "app.cli", "run", "--model", "fake-model", "--base-url", server.base_url,
               "--api-key", "x", "hi"]
        bare = [sys.executable, "-c", BARE, server.base_url]
        times: dict[str, list[tuple[float, float]]] = {"bare": [], "run": [], "acp": []}
        for _ in range(rounds):
            times["bare"].append(timed(bare, env, work))
            times["run"].append(timed(run, env, work))
            times["acp"].append(asyncio.run(acp_round_trip(server.base_url, env, work)))
    wall = {name: statistics.median(w for w, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    for name in times:
        print(f"{name:>5}: median {wall[name] * 1000:7.0f} ms wall, {cpu[name] * 1000:6.0f} ms CPU over {rounds} runs")
    print(f"whimbrel run / bare SDK script: {wall['run'] / wall['bare']:.2f}x wall (target <= 1.3x), "
          f"{cpu['run'] / cpu['bare']:.2f}x CPU")
    print(f"whimbrel acp round trip / whimbrel run: {wall['acp'] / wall['run']:.2f}x wall, "
          f"{cpu['acp'] / cpu['run']:.2f}x CPU")


if __name__ == "__main__":
    main()
