"""`whimbrel serve`: the command line of the browser face (docs/serve.md).

It checks its flags and the window's (after `--`), binds the socket, prints the URL with its token,
and hands over to textual-serve (imported only here, so the other faces never pay for it).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import Callable

ABOUT = "serve the window to a browser: one app per tab, behind a token (docs/serve.md)"
REMOTE_WARNING = """\
!!! WARNING: whimbrel serve is listening on {host}, reachable from other machines.
!!! Its traffic (your code, your prompts, the token) is plain HTTP: anyone on the way can read it.
!!! Put TLS in front (a reverse proxy such as Caddy or nginx: docs/serve.md) and pass --public-url.
!!! Whoever has the token can run anything Whimbrel can, as you."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """A window option before `--` (`whimbrel serve --model m`) says where it goes."""
        if message.startswith("unrecognized arguments"):
            message += " (the window's options go after `--`: whimbrel serve -- --model NAME)"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="whimbrel serve", description=ABOUT[0].upper() + ABOUT[1:] + ".",
        usage="whimbrel serve [--host HOST] [--port N] [--token-file F] [--allow-remote] [--public-url URL] "
              "[-- WINDOW OPTIONS]",
        epilog="Each browser tab runs its own `whimbrel` window on the same data directory: two tabs behave "
               "like two terminal windows. Options after `--` are the window's (whimbrel --help), e.g. "
               "`whimbrel serve -- --model gpt-4o --workdir ~/src/app`.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; another needs --allow-remote)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765; 0 picks a free one)")
    parser.add_argument("--token-file", type=Path, default=None,
                        help="read the token from this file's first line (default: a new random token)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow an address other browsers' machines can reach (put TLS in front)")
    parser.add_argument("--public-url", default=None,
                        help="the URL browsers use, when a reverse proxy is in front (e.g. https://whimbrel.example)")
    parser.add_argument("window", nargs=argparse.REMAINDER, help="after `--`: the window's options")
    return parser


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _fail(message: str) -> int:
    print(f"whimbrel serve: {message}", file=sys.stderr)
    return 2


def main(argv: list[str], window_parser: Callable[[], argparse.ArgumentParser]) -> int:
    """Serve until SIGINT or SIGTERM; `window_parser` checks the window's options once, here."""
    args = build_parser().parse_args(argv)
    window = args.window[1:] if args.window[:1] == ["--"] else args.window
    if args.window and args.window[0] != "--":
        return _fail(f"unknown option {args.window[0]!r}; the window's options go after `--`")
    window_parser().parse_args(window)  # a mistyped window option stops here, not in every tab
    if not 0 <= args.port <= 65535:
        return _fail(f"--port {args.port} is not a port (0 to 65535)")
    if not is_loopback(args.host) and not args.allow_remote:
        return _fail(f"--host {args.host} is reachable from other machines; pass --allow-remote to mean it "
                     "(and put TLS in front: docs/serve.md)")
    from app.serve.guard import Guard, TokenFileError, new_token, read_token

    try:
        token = read_token(args.token_file) if args.token_file else new_token()
    except TokenFileError as error:
        return _fail(str(error))
    try:
        sock = _bind(args.host, args.port)
    except OSError as error:
        return _fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    public_url = (args.public_url or f"http://{host}:{port}").rstrip("/")
    if not public_url.startswith(("http://", "https://")):
        sock.close()
        return _fail(f"--public-url {args.public_url!r} must start with http:// or https://")
    guard = Guard(token=token, public_url=public_url)
    os.environ["WHIMBREL_SERVED_BY"] = str(os.getpid())  # app/serve/child.py: each tab's app ends with us
    command = "exec " + shlex.join([sys.executable, "-m", "app.cli", *window])
    if not is_loopback(args.host):
        print(REMOTE_WARNING.format(host=args.host), file=sys.stderr, flush=True)
    print(f"Whimbrel is served on {public_url}\nOpen this URL (it carries the token):\n  {guard.first_url()}\n"
          "Press Ctrl+C to stop; every tab's app ends with the server.", flush=True)
    import logging

    from app.serve.textual_serve_internals import TabServer

    logging.basicConfig(level=logging.INFO if os.environ.get("WHIMBREL_SERVE_LOG") else logging.WARNING,
                        format="whimbrel serve: %(message)s")
    TabServer(command, public_url=public_url, middleware=guard.middleware()).run(sock)
    return 0


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock
