"""`whimbrel serve` against the terminal: time to the complete first screen, and a key's echo while a
reply streams, in a browser (Debian's headless Chromium, driven by Playwright) beside a real pty.

The same Whimbrel, the same config and saved store as benchmarks/startup.py (one model on a fake
OpenAI-compatible server on 127.0.0.1, two saved tabs), 120x40 in the pty; the browser page is sized
so its terminal is about as large. Rounds alternate terminal and browser.

- complete first screen: terminal from the spawn, browser from the navigation to the printed URL
  (so it includes the page, the websocket, and the tab's app process starting) until every marker
  of startup.py's complete screen is on screen (in the browser: in xterm.js's own buffer);
- echo while streaming: a prompt is sent, the reply streams (a chunk every 20 ms) and, once its
  first words are shown, a key is typed; the time until it shows (median of a few keys per round).

    .venv/bin/python benchmarks/serve.py [--runs 5] [--smoke]

`--smoke` is one round without a warm-up (the tests run it so the benchmark does not rot).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pty_terminal import COLUMNS, ROWS, Terminal  # noqa: E402
from benchmarks.startup import (KEY, WHIMBREL_MARKERS, compile_own_modules, ms, saved_data_dir,  # noqa: E402
                                whimbrel_program, write_config)

STREAM_START = "Streaming-begins"
STREAM = STREAM_START + " " + "a steady reply that keeps streaming while keys are typed, " * 60
KEYS_PER_ROUND = 5
VIEWPORT = {"width": 1400, "height": 900}


def fresh(tmp: Path, name: str) -> None:
    shutil.rmtree(tmp / f"data-{name}", ignore_errors=True)
    shutil.copytree(tmp / "pristine", tmp / f"data-{name}")


def terminal_round(tmp: Path, server, echoes: list[float]) -> float:
    from tests.fake_llm.script import TextReply

    program = whimbrel_program("terminal", ROOT, tmp)
    fresh(tmp, "terminal")
    with Terminal("terminal", program.argv, ROOT) as terminal:
        screen = max(terminal.wait_for(WHIMBREL_MARKERS).values())
        server.queue(TextReply(STREAM, chunk_size=6, delay=0.02))
        terminal.send(b"stream please\r")
        terminal.wait_for({"reply": STREAM_START.encode()}, since=0)
        echoes.append(statistics.median(terminal.echo_seconds(KEY) for _ in range(KEYS_PER_ROUND)))
    return screen


def browser_round(context_factory, served, tmp: Path, server, echoes: list[float]) -> float:
    from tests.fake_llm.script import TextReply
    from tests.serve.served import Tab, alive, wait_until

    fresh(tmp, "browser")
    context = context_factory()
    try:
        tab = Tab(context.new_page())
        markers = [marker.decode() for marker in WHIMBREL_MARKERS.values()]
        started = time.perf_counter()
        tab.open(served.url)
        wait_until(lambda: all(marker in tab.screen() for marker in markers), 120, "the complete screen",
                   lambda: f": {[m for m in markers if m not in tab.screen()]} missing from\n{tab.screen()}")
        screen = time.perf_counter() - started
        server.queue(TextReply(STREAM, chunk_size=6, delay=0.02))
        tab.type("stream please")
        tab.press("Enter")
        tab.wait_for(STREAM_START)
        key = KEY.decode()
        times = []
        for _ in range(KEYS_PER_ROUND):
            before = tab.screen().count(key)
            sent = time.perf_counter()
            tab.page.keyboard.type(key)
            wait_until(lambda: tab.screen().count(key) > before, 30, "the key's echo")
            times.append(time.perf_counter() - sent)
        echoes.append(statistics.median(times))
    finally:
        pids = served.tab_pids()
        context.close()
        wait_until(lambda: not any(alive(pid) for pid in pids), 60, "the tab's app to end")
    return screen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured rounds (default 5)")
    parser.add_argument("--smoke", action="store_true", help="one round, no warm-up: does it still run")
    args = parser.parse_args(argv)
    from tests.serve.served import CHROMIUM, CHROMIUM_ARGS, Served, have_browser

    if reason := have_browser():
        print(f"no browser to measure with: {reason}")
        return 0
    from playwright.sync_api import sync_playwright

    from tests.fake_llm.openai_server import FakeOpenAIServer

    compile_own_modules(ROOT)
    runs = 1 if args.smoke else args.runs
    with tempfile.TemporaryDirectory(prefix="whimbrel-bench-serve-") as name, FakeOpenAIServer() as server:
        tmp = Path(name)
        (tmp / "work").mkdir()
        write_config(tmp / "config.toml", int(server.base_url.rsplit(":", 1)[1].split("/")[0]))
        saved_data_dir(tmp / "pristine", tmp / "work")
        window = ["--workdir", str(tmp / "work"), "--data-dir", str(tmp / "data-browser"),
                  "--config", str(tmp / "config.toml")]
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        screens: dict[str, list[float]] = {"terminal": [], "browser": []}
        echoes: dict[str, list[float]] = {"terminal": [], "browser": []}
        with Served(tmp, *window) as served, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            factory = lambda: browser.new_context(viewport=VIEWPORT)  # noqa: E731
            try:
                rounds = [("terminal", lambda e: terminal_round(tmp, server, e)),
                          ("browser", lambda e: browser_round(factory, served, tmp, server, e))]
                if not args.smoke:  # warm-up: disk caches, the browser's first page
                    for _, measure in rounds:
                        measure([])
                print(f"complete first screen and a key's echo while a reply streams ({COLUMNS}x{ROWS} pty; "
                      f"browser {VIEWPORT['width']}x{VIEWPORT['height']}), {runs} round(s)")
                for run in range(runs):
                    for name, measure in (rounds if run % 2 == 0 else rounds[::-1]):
                        screens[name].append(measure(echoes[name]))
                    print(f"  round {run + 1}: " + "   ".join(
                        f"{n} {ms(screens[n][-1])} (echo {ms(echoes[n][-1])})" for n in screens))
            finally:
                browser.close()
    print()
    print(f"{'':12}{'screen':>10}{'echo':>9}")
    for name in screens:
        print(f"{name:12}{ms(statistics.median(screens[name])):>10}{ms(statistics.median(echoes[name])):>9}")
    ratio = statistics.median(screens["browser"]) / statistics.median(screens["terminal"])
    print(f"browser / terminal: first screen {ratio:.2f}x, echo "
          f"{statistics.median(echoes['browser']) / statistics.median(echoes['terminal']):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
