"""Code mode vs native calls on one task: read 30 files and say which import sqlalchemy.

The same scripted model (tests/fake_llm over real HTTP, the real Session, tools, sandbox and SQLite)
does it three ways: native with one call per response (30 round trips of tool results), native with
all 30 calls in one response, and code mode with one run_code program. Printed per way: model round
trips, tokens of tool results sent back to the model (characters / 4), and wall time; then the ratios
of code mode to native (targets: tokens sent back <= 0.1x, wall time <= 0.5x). `--latency` is the
time the fake model takes per response (a real model's first token is rarely under a second).

    .venv/bin/python benchmarks/code_mode.py [--latency 0.5] [--files 30] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROGRAM = """
hits = []
for i in range({files}):
    text = await tools.read_file(path=f"mod_{{i:02d}}.py")
    if "import sqlalchemy" in text:
        hits.append(f"mod_{{i:02d}}.py")
print("modules importing sqlalchemy:", ", ".join(hits))
"""


def write_modules(workspace: Path, files: int) -> None:
    for i in range(files):
        body = ("import sqlalchemy\n" if i % 10 == 3 else "import os\n") + "".join(
            f"def function_{n}(value):\n    return value * {n}\n\n" for n in range(40))
        (workspace / f"mod_{i:02d}.py").write_text(body)


def paced(reply, latency: float):
    """`reply` taking `latency` seconds in all (the fake server sleeps after each delta)."""
    from tests.fake_llm.openai_chunks import deltas

    reply.delay = latency / max(1, len(list(deltas(reply))))
    return reply


def scripts(files: int, latency: float):
    from tests.fake_llm.script import TextReply, ToolCallReply

    big = 1 << 20  # whole arguments in one delta
    read = [("read_file", json.dumps({"path": f"mod_{i:02d}.py"}), f"r{i}") for i in range(files)]
    answer = paced(TextReply("Those modules import sqlalchemy.", chunk_size=big), latency)
    program = [("run_code", json.dumps({"code": PROGRAM.format(files=files)}), "rc1")]
    return {
        "native, one call per response": [paced(ToolCallReply([c], chunk_size=big), latency) for c in read] + [answer],
        "native, all calls in one response": [paced(ToolCallReply(read, chunk_size=big), latency), answer],
        "code mode, one program": [paced(ToolCallReply(program, chunk_size=big), latency), answer],
    }


async def run_once(server, replies, mode: str, files: int) -> dict[str, float]:
    from app.engine.session import Session
    from app.engine.tool_setup import configure_tools
    from app.providers.base import ModelSettings
    from app.providers.openai_chat import OpenAIChatProvider
    from app.storage.async_store import AsyncStore
    from tools.context import ToolContext
    from tools.registry import ToolRegistry

    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        write_modules(workspace, files)
        (Path(tmp) / "config.toml").write_text(f'[tools]\nmode = "{mode}"\n')
        from app.settings.config import load_config

        store = await AsyncStore.open(Path(tmp) / "whimbrel.db")
        workstream_id = await store.create_workstream(title="bench", model="fake-model", workdir=str(workspace))
        provider = OpenAIChatProvider(ModelSettings(model="fake-model", base_url=server.base_url, api_key="x",
                                                    context_window=1_000_000))
        session = Session(workstream_id=workstream_id, provider=provider, registry=ToolRegistry.load_builtin(),
                          tool_context=ToolContext(workspace=workspace), emit=lambda _e: None, store=store)
        configure_tools(session, load_config(Path(tmp) / "config.toml"))
        server.reset()
        server.queue(*replies)
        started = time.perf_counter()
        await session.run_turn("Which modules import sqlalchemy?")
        wall = time.perf_counter() - started
        requests = list(server.requests)
        await provider.close()
        await store.aclose()
    final = requests[-1]["messages"]
    sent_back = sum(len(m["content"]) for m in final if m["role"] == "tool")
    return {"round_trips": len(requests), "tokens_back": sent_back / 4, "wall": wall}


async def main(latency: float, files: int) -> None:
    from tests.fake_llm.openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        results = {}
        for name, replies in scripts(files, latency).items():
            mode = "code" if name.startswith("code") else "native"
            results[name] = await run_once(server, replies, mode, files)
    print(f"{files} files, fake model latency {latency:g} s per response")
    for name, r in results.items():
        print(f"  {name:36s} round trips {r['round_trips']:3.0f}   tool-result tokens sent back "
              f"{r['tokens_back']:8.0f}   wall {r['wall']:6.2f} s")
    code = results["code mode, one program"]
    for name in ("native, one call per response", "native, all calls in one response"):
        native = results[name]
        print(f"  code / {name}: round trips {code['round_trips'] / native['round_trips']:.2f}x, tokens sent back "
              f"{code['tokens_back'] / native['tokens_back']:.3f}x (target <= 0.1x), wall "
              f"{code['wall'] / native['wall']:.2f}x (target <= 0.5x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    options = parser.parse_args()
    if options.smoke:
        options.latency, options.files = 0.0, 3
    asyncio.run(main(options.latency, options.files))
