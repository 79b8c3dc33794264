"""A real `whimbrel serve` for the tests: started on a free port, its URL read from what it prints,
its tabs' app processes found in /proc, and a headless Chromium (Debian's, never a download) that
reads the screen out of the page's own xterm.js buffer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from tests.subprocesses import stop_process

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# The page keeps its terminal in a closure; its constructor sets `websocket_url` on itself first, so a
# setter on Object.prototype hands the test that object (the xterm.js Terminal is its `.terminal`).
FIND_TERMINAL = """Object.defineProperty(Object.prototype, 'websocket_url', {configurable: true,
  set(value) {
    Object.defineProperty(this, 'websocket_url', {value, writable: true, configurable: true, enumerable: true});
    window.__whimbrelTab = this;
  }});"""
READ_SCREEN = """() => {
  const tab = window.__whimbrelTab; const term = tab && tab.terminal; if (!term) return '';
  const buffer = term.buffer.active; const rows = [];
  for (let i = 0; i < term.rows; i++) { const line = buffer.getLine(buffer.viewportY + i);
    rows.push(line ? line.translateToString(true) : ''); }
  return rows.join('\\n'); }"""


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, detail: Callable[[], str] = str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not within {timeout}s{detail()}")
        time.sleep(0.05)


class Served:
    """`python -m app.cli serve --port 0 -- WINDOW_ARGS` in `tmp_path` until close()."""

    def __init__(self, tmp_path: Path, *window: str, serve_args: tuple[str, ...] = ()) -> None:
        self.log = tmp_path / "serve.out"
        argv = [sys.executable, "-m", "app.cli", "serve", "--port", "0", *serve_args, "--", *window]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            cwd=tmp_path)
        try:
            found = wait_until(lambda: re.search(r"(http://\S+)/\?token=(\S+)", self.output())
                               or self.process.poll() is not None, 60, "the server's URL", self._tail)
            assert self.process.poll() is None, f"whimbrel serve exited:{self._tail()}"
        except BaseException:
            self.close()
            raise
        self.base, self.token = found.group(1), found.group(2)
        self.url = f"{self.base}/?token={self.token}"
        self.origin = self.base
        self.port = urlsplit(self.base).port

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def _tail(self) -> str:
        return "; its output:\n" + self.output()[-3000:]

    def tab_pids(self) -> set[int]:
        """The live app processes the server started (its children; one per open tab)."""
        return children(self.process.pid)

    def close(self) -> None:
        stop_process(self.process, grace=30)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def children(pid: int) -> set[int]:
    found: set[int] = set()
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tasks = list(task_dir.iterdir())
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            found |= {int(p) for p in (task / "children").read_text().split()}
        except (FileNotFoundError, ProcessLookupError):
            continue
    return {p for p in found if alive(p)}


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Tab:
    """One browser tab on the served app: its screen text, keys typed into it."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def open(self, url: str) -> Any:
        """Load the page; once the app has drawn, its terminal gets the keyboard as a user's click
        would give it (a headless page is never focused by itself; the app starts blurred and shows
        its footer's keys once focused)."""
        self.page.add_init_script(FIND_TERMINAL)
        response = self.page.goto(url)
        if response is not None and response.ok:
            self.page.wait_for_selector("body.-first-byte", state="attached", timeout=120_000)
            self.page.focus(".xterm-helper-textarea")
        return response

    def screen(self) -> str:
        return self.page.evaluate(READ_SCREEN)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        wait_until(lambda: text in self.screen(), timeout, f"{text!r} in the browser",
                   lambda: "; the screen:\n" + self.screen())

    def click_text(self, text: str) -> None:
        """Click the middle of the first cell of `text` on the screen (the terminal is a canvas: the
        cell's place is its row and column times the cell size the terminal was laid out with)."""
        rows = self.screen().split("\n")
        row = next(i for i, line in enumerate(rows) if text in line)
        column = rows[row].index(text)
        box = self.page.locator(".xterm-screen").bounding_box()
        columns = self.page.evaluate("() => window.__whimbrelTab.terminal.cols")
        cell_width, cell_height = box["width"] / columns, box["height"] / len(rows)
        self.page.mouse.click(box["x"] + (column + 1.5) * cell_width, box["y"] + (row + 0.5) * cell_height)

    def type(self, text: str) -> None:
        self.page.focus(".xterm-helper-textarea")
        self.page.keyboard.type(text)

    def press(self, key: str) -> None:
        self.page.focus(".xterm-helper-textarea")
        self.page.keyboard.press(key)


def have_browser() -> str:
    """Why the browser tests cannot run here ("" when they can)."""
    if not os.path.exists(CHROMIUM):
        return f"no {CHROMIUM}: apt-get install chromium (Debian's; the tests never download a browser)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed: pip install -e '.[test]'"
    return ""
