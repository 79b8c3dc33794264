"""Streaming throughput: the app vs the bare SDK on the same 20,000-token stream, per provider.

A fake server (OpenAI chat completions or Responses, or Anthropic messages) runs in its own
process and streams N one-word tokens as fast as it can. For each provider, in one run:

- bare SDK: the SDK's own streaming iteration of the events, with no UI
  (`chat.completions.create` / `responses.create` / `messages.create`, all with `stream=True`);
- app: the real WhimbrelApp, headless (`App.run_test`), submits a prompt; the clock stops when
  the transcript's Markdown holds the last token and the screen has painted it;
- engine only: the Session with a no-op frontend (provider, events, SQLite), for reference.

Wall time and this process's CPU time are measured (the server's CPU is not counted). Rounds
alternate bare/app after a warm-up; the ratio of medians is printed (target <= 1.5). Every run
starts after a full garbage collection (as the app's idle collector would do between replies). The
app runs with the interpreter tuning it applies once booted in a real terminal
(`tune_interpreter_for_input`: boot objects frozen out of collections, full collections only when
idle), which headless apps skip; the interpreter's defaults are restored after each app run, so
the bare SDK and the engine run as a plain script would.

    .venv/bin/python benchmarks/throughput.py [--tokens 20000] [--runs 3] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = "tok "
# Prose has paragraphs; one endless paragraph is a renderer's worst case (each update re-wraps it
# whole), not what models send. The stream ends a paragraph every PARAGRAPH_EVERY tokens.
PARAGRAPH_EVERY = 80


def streamed_text(tokens: int) -> str:
    from tests.fake_llm.script import TokensReply

    return "".join(TokensReply(count=tokens, paragraph_every=PARAGRAPH_EVERY).pieces())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(kind: str, tokens: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    module = "tests.fake_llm.anthropic_server" if kind == "anthropic" else "tests.fake_llm.openai_server"
    proc = subprocess.Popen([sys.executable, "-m", module, "--port", str(port), "--tokens", str(tokens),
                             "--paragraph-every", str(PARAGRAPH_EVERY)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdout.readline()  # "fake ... server on ..." once it listens
    return proc, port


def base_url(kind: str, port: int) -> str:
    return f"http://127.0.0.1:{port}" + ("" if kind == "anthropic" else "/v1")


def model_name(kind: str) -> str:
    return "fake-claude" if kind == "anthropic" else "fake-model"


async def bare(kind: str, port: int, tokens: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    count = 0
    if kind == "openai":
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=base_url(kind, port), api_key="x", max_retries=0)
        stream = await client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "go"}], stream=True)
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                count += 1
    elif kind == "openai-responses":
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=base_url(kind, port), api_key="x", max_retries=0)
        stream = await client.responses.create(model="fake-model", input="go", stream=True)
        async for event in stream:
            if event.type == "response.output_text.delta":
                count += 1
    else:
        from anthropic import AsyncAnthropic

        client = AsyncAnthropic(base_url=base_url(kind, port), api_key="x", max_retries=0)
        stream = await client.messages.create(model="fake-claude", max_tokens=64000, stream=True,
                                              messages=[{"role": "user", "content": "go"}])
        async for event in stream:
            if event.type == "content_block_delta":
                count += 1
    await client.close()
    assert count == tokens, (kind, count)
    return time.perf_counter() - wall, time.process_time() - cpu


async def engine_only(kind: str, port: int, tokens: int) -> tuple[float, float]:
    """The Session (provider, events, SQLite) with a no-op frontend: the engine's share."""
    from app.engine.session import Session
    from app.providers.base import ModelSettings
    from app.providers.registry import make_provider
    from tools.context import ToolContext
    from tools.registry import ToolRegistry

    provider = make_provider(ModelSettings(model=model_name(kind), base_url=base_url(kind, port), api_key="x",
                                           provider=kind))
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(workstream_id="bench", provider=provider, registry=ToolRegistry.load_builtin(),
                          tool_context=ToolContext(workspace=Path(tmp)), emit=lambda event: None)
        wall, cpu = time.perf_counter(), time.process_time()
        await session.run_turn("go")
        result = time.perf_counter() - wall, time.process_time() - cpu
    await provider.close()
    assert session.messages[-1].content == streamed_text(tokens)
    return result


async def in_app(kind: str, port: int, tokens: int) -> tuple[float, float]:
    from app.runtime.idle_gc import tune_interpreter_for_input
    from app.tui.app import AppOptions, WhimbrelApp
    from app.providers.base import ModelSettings

    settings = ModelSettings(model=model_name(kind), base_url=base_url(kind, port), api_key="x", provider=kind,
                             context_window=1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "ws").mkdir()
        options = AppOptions(settings=settings, workdir=Path(tmp) / "ws", data_dir=Path(tmp) / "data",
                             config_path=Path(tmp) / "config.toml", auto_title=False)
        app = WhimbrelApp(options)
        expected = len(streamed_text(tokens).rstrip())
        async with app.run_test(size=(120, 40)) as pilot:
            await app.ready.wait()
            defaults = gc.get_threshold(), sys.getswitchinterval()
            tune_interpreter_for_input()  # what the app does once booted in a real terminal (headless skips it)
            await pilot.pause()
            from widgets.messages import AssistantMessage

            wall, cpu = time.perf_counter(), time.process_time()
            app.turns.submit(app.workstream, "go")
            deadline = time.monotonic() + 300
            message = None  # found once, so polling costs the app next to nothing
            while True:
                if message is None and (found := app.screen.query(AssistantMessage)):
                    message = found.last()
                got = len(message.shown_text.rstrip()) if message is not None else 0
                if got >= expected - 1:
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"{kind}: the transcript showed {got} of {expected} characters after 300 s")
                await asyncio.sleep(0.01)
            await message.wait_for_refresh()  # ... and the screen has painted it
            result = time.perf_counter() - wall, time.process_time() - cpu
            await pilot.pause()
    gc.unfreeze()  # back to a plain interpreter for whatever runs next
    gc.set_threshold(*defaults[0])
    sys.setswitchinterval(defaults[1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--providers", default="openai,anthropic",
                        help="comma-separated: openai, openai-responses, anthropic")
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round of every provider, no warm-up, to show it still runs (its figures mean nothing)")
    args = parser.parse_args()
    if args.smoke:
        args.tokens, args.runs, args.providers = 200, 1, "openai,openai-responses,anthropic"
    print(f"{args.tokens} tokens, {args.runs} rounds after a warm-up; medians; target: app/bare wall <= 1.5")
    print(f"{'provider':<16} {'bare wall':>10} {'app wall':>10} {'ratio':>7} {'bare cpu':>10} {'app cpu':>10} {'ratio':>7}")
    for kind in args.providers.split(","):
        proc, port = start_server(kind, args.tokens)
        try:
            if not args.smoke:  # warm-up: imports, connections
                asyncio.run(bare(kind, port, args.tokens))
                asyncio.run(in_app(kind, port, args.tokens))
            runners = {"bare": bare, "engine": engine_only, "app": in_app}
            results: dict[str, list[tuple[float, float]]] = {name: [] for name in runners}
            for round_ in range(args.runs):
                order = list(runners) if round_ % 2 == 0 else list(reversed(runners))
                for name in order:
                    gc.collect()  # no run pays for the garbage of the one before
                    results[name].append(asyncio.run(runners[name](kind, port, args.tokens)))
        finally:
            proc.terminate()
            proc.wait()
        bw = statistics.median(r[0] for r in results["bare"])
        aw = statistics.median(r[0] for r in results["app"])
        bc = statistics.median(r[1] for r in results["bare"])
        ac = statistics.median(r[1] for r in results["app"])
        ew = statistics.median(r[0] for r in results["engine"])
        print(f"{kind:<16} {bw:>9.2f}s {aw:>9.2f}s {aw / bw:>7.2f} {bc:>9.2f}s {ac:>9.2f}s {ac / bc:>7.2f}"
              f"   (engine only, no UI: {ew:.2f}s = {ew / bw:.2f}x bare)", flush=True)


if __name__ == "__main__":
    main()
