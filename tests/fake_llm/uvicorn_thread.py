"""Run an ASGI app with uvicorn on 127.0.0.1 in a background thread (for the fake servers).

A real socket matters: httpx2's ASGITransport buffers streamed bodies, so incremental
streaming and cancellation can only be tested over TCP.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
from typing import Any


class UvicornThread:
    """Serves `app` on 127.0.0.1:`port` (0 picks a free port) until stop()."""

    def __init__(self, app: Any, port: int = 0) -> None:
        import uvicorn

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="off",
                                timeout_graceful_shutdown=1, access_log=False)
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start serving; returns once the socket accepts connections."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name=f"uvicorn-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake server on port {self.port} did not start")
            time.sleep(0.005)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask uvicorn to exit and wait for the thread (open streams get 1 s to finish)."""
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout)
        self._thread = None
        self._socket.close()


class ServedOnThread:
    """Start/stop and `with` for a fake server that keeps its UvicornThread in `self._runner`."""

    _runner: UvicornThread

    @property
    def port(self) -> int:
        return self._runner.port

    def start(self):
        self._runner.start()
        return self

    def stop(self) -> None:
        self._runner.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_until_interrupted(server: Any, label: str) -> None:
    """Run a fake server (a context manager with `base_url`) from the command line until Ctrl+C or SIGTERM.

    Both handlers are installed explicitly: a process started from a script in the background
    inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    """
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with server:
        print(f"{label} on {server.base_url}", flush=True)
        stop.wait()
