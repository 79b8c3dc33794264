"""The localhost callback of a browser sign-in: a tiny HTTP listener on 127.0.0.1 that catches the
authorization server's redirect (`/callback?code=…&state=…`) and answers the browser with a short page.

Only a request carrying the state of the sign-in in progress ends the wait; anything else gets an
error page and the listener keeps waiting. `wait()` has a deadline, so an abandoned sign-in ends as
a `SignInError`, never a hang. Plain asyncio, no SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
import socket
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

HOST = "127.0.0.1"
PATH = "/callback"
_HEAD_LIMIT = 16384


class SignInError(Exception):
    """A browser sign-in did not complete: declined, denied, timed out, or the callback failed."""


@dataclass
class CallbackResult:
    code: str
    state: str
    iss: str | None = None


def free_port(host: str = HOST) -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_is_free(port: int, host: str = HOST) -> bool:
    """Whether the callback could listen on `port` now (a port in TIME_WAIT counts as free, as for
    the listener itself, which sets SO_REUSEADDR)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


class CallbackServer:
    """Listens on 127.0.0.1:`port` (0: any free port) for one authorization redirect."""

    def __init__(self, port: int = 0, *, server_name: str = "the MCP server", path: str = PATH) -> None:
        self.port = port
        self.path = path
        self.server_name = server_name
        self._server: asyncio.base_events.Server | None = None
        self._expected: str | None = None
        self._result: asyncio.Future[CallbackResult] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{self.path}"

    async def start(self) -> int:
        """Begin listening; returns the port. Raises SignInError when the port is taken."""
        if self._server is None:
            try:
                self._server = await asyncio.start_server(self._serve, HOST, self.port, reuse_address=True)
            except OSError as exc:
                raise SignInError(f"the sign-in callback cannot listen on {HOST}:{self.port} "
                                  f"({exc.strerror or exc}); set another oauth redirect_port") from None
            self.port = self._server.sockets[0].getsockname()[1]
        self._result = asyncio.get_running_loop().create_future()
        return self.port

    def expect(self, state: str) -> None:
        """The `state` of the sign-in in progress: only a redirect carrying it is accepted."""
        self._expected = state

    def cancel(self, reason: str) -> None:
        """End the wait with `reason` (the user closed the dialog, the app is stopping, …)."""
        if self._result is not None and not self._result.done():
            self._result.set_exception(SignInError(reason))

    async def wait(self, timeout: float) -> CallbackResult:
        """The code the browser brought back; SignInError on denial, cancel or after `timeout` seconds."""
        if self._result is None:
            raise SignInError("the sign-in callback is not listening")
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except asyncio.TimeoutError:
            self._result.cancel()
            raise SignInError(f"no answer from the browser sign-in within {timeout:g}s (timed out)") from None

    async def close(self) -> None:
        if self._result is not None:
            if not self._result.done():
                self._result.cancel()
            elif not self._result.cancelled():
                self._result.exception()  # retrieved: no "never retrieved" warning
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    # -- one HTTP request ------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        status, title, text = self._handle(head[:_HEAD_LIMIT].decode("latin-1").split("\r\n", 1)[0])
        body = _page(title, text).encode("utf-8")
        writer.write((f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                      f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
                      ).encode("ascii") + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    def _handle(self, request_line: str) -> tuple[str, str, str]:
        parts = request_line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return "405 Method Not Allowed", "Not here", "This address only takes the sign-in redirect."
        target = urlsplit(parts[1])
        if target.path != self.path:
            return "404 Not Found", "Not here", "This address only takes the sign-in redirect."
        query = {k: v[0] for k, v in parse_qs(target.query, keep_blank_values=True).items()}
        state = query.get("state", "")
        waiting = self._result is not None and not self._result.done()
        if not waiting:
            return "409 Conflict", "No sign-in in progress", "Whimbrel is not waiting for this sign-in any more."
        if not self._expected or not secrets.compare_digest(state.encode(), self._expected.encode()):
            return ("400 Bad Request", "Sign-in not recognised",
                    "This redirect does not belong to the sign-in Whimbrel is waiting for (state mismatch).")
        if "error" in query:
            detail = query.get("error_description") or query["error"]
            self._result.set_exception(SignInError(f"the authorization server refused the sign-in: {detail}"))
            return "200 OK", "Sign-in failed", f"{self.server_name} refused the sign-in: {detail}."
        if not query.get("code"):
            return "400 Bad Request", "Sign-in incomplete", "The redirect carries no authorization code."
        self._result.set_result(CallbackResult(query["code"], state, query.get("iss")))
        return ("200 OK", "Signed in", f"Whimbrel is signed in to {self.server_name}. "
                "You can close this tab and return to the terminal.")


def _page(title: str, text: str) -> str:
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Whimbrel: " + html.escape(title) +
            "</title></head><body style='font-family:sans-serif;margin:3em'><h1>" + html.escape(title) +
            "</h1><p>" + html.escape(text) + "</p></body></html>")
