"""textual-serve's private API, in one module: what `whimbrel serve` needs of it beyond the public one.

textual-serve's `Server` builds its aiohttp application in a private method and starts each tab's
app through `AppService`, whose process and reader task are private attributes. Whimbrel needs:
the application before it runs (to add the token middleware and bind a socket it opened, so
`--port 0` can report its port), its own websocket handler (the Origin is checked by the
middleware; here each tab's process is tracked, and ended even when it does not quit when asked),
and the process of a tab (to end it). Each private name is listed in PRIVATE_NAMES with the
feature that needs it; tests/serve/test_textual_serve_internals.py pins each one against the
installed textual-serve, and tests/test_architecture.py fails if another module names one.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

PRIVATE_NAMES = {
    "Server._make_app": "the aiohttp application, given the token middleware and run on our socket",
    "Server._process_messages": "a tab's websocket messages (keys, resize) passed to its app",
    "AppService._task": "the reader of a tab's app: awaited, with a deadline, when the tab closes",
    "AppService._process": "a tab's app process, ended when it does not quit when asked",
    "AppService._download_manager": "a closed tab's downloads cancelled",
}

QUIT_GRACE = 10.0  # seconds a tab's app has to quit when asked, before SIGTERM (then SIGKILL)
log = logging.getLogger("whimbrel.serve")


class TabApp(AppService):
    """One browser tab's app process, which never outlives the tab."""

    async def stop(self) -> None:
        """Ask the app to quit; end its process if it has not within QUIT_GRACE seconds. Idempotent."""
        task, self._task = self._task, None
        if task is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        done, _ = await asyncio.wait({task}, timeout=QUIT_GRACE)
        if not done:
            log.warning("a tab's app did not quit within %.0f s: ending it", QUIT_GRACE)
            await end_process(self._process)
        await asyncio.wait({task}, timeout=QUIT_GRACE)
        await end_process(self._process)  # its output closed first (it closed stdout): reap it

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid


async def end_process(process: Any) -> None:
    """SIGTERM, then SIGKILL after a few seconds; then reap it."""
    if process is None:
        return
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 30.0)):
        if process.returncode is not None:
            return
        try:
            process.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(process.wait(), wait)
            return
        except TimeoutError:
            continue


class TabServer(Server):
    """textual-serve's server with one app process per tab, each tracked and ended with its tab."""

    def __init__(self, command: str, *, public_url: str, middleware: Any) -> None:
        super().__init__(command, title="Whimbrel", public_url=public_url)
        self.middleware = middleware
        self.tabs: set[TabApp] = set()

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: the command line has printed the URL (textual-serve would print a logo)."""

    async def on_shutdown(self, app: web.Application) -> None:
        """The server stops: every tab's app ends (each asked to quit first)."""
        await asyncio.gather(*(tab.stop() for tab in list(self.tabs)), return_exceptions=True)

    async def make_app(self) -> web.Application:
        app = await self._make_app()
        app.middlewares.append(self.middleware)
        return app

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A tab connected (the middleware checked its cookie and Origin): start its app, run it
        until the tab goes (closed, reloaded, or silent past the heartbeat), then end the app."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _size(request.query.get("width"), 80)
        height = _size(request.query.get("height"), 24)
        tab: TabApp | None = None
        try:
            await websocket.prepare(request)
            tab = TabApp(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=websocket.close, download_manager=self.download_manager, debug=False)
            self.tabs.add(tab)
            await tab.start(width, height)
            log.info("tab opened: app process %s", tab.pid)
            await self._process_messages(websocket, tab)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception:  # a broken message from the page: the tab ends, the server goes on
            log.exception("a tab's websocket failed")
        finally:
            if tab is not None:
                await tab.stop()
                self.tabs.discard(tab)
                log.info("tab closed: app process %s ended", tab.pid)
        return websocket

    def run(self, sock: socket.socket) -> None:
        """Serve on `sock` until SIGINT or SIGTERM; every tab's app is ended on the way out."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.request_exit)
        web.run_app(self.make_app(), sock=sock, handle_signals=False, loop=loop, print=None,
                    shutdown_timeout=QUIT_GRACE + 5, access_log=None)


def _size(value: str | None, default: int) -> int:
    try:
        return max(10, min(int(value or default), 1000))
    except ValueError:
        return default
