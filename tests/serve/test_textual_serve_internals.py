"""textual-serve's private API that app/serve/textual_serve_internals.py uses, pinned against the
installed version (an upgrade that renames one fails here, naming it), and what it is for: a tab's
app that will not quit when asked is ended all the same."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("textual_serve")

from textual_serve.app_service import AppService  # noqa: E402
from textual_serve.download_manager import DownloadManager  # noqa: E402
from textual_serve.server import Server  # noqa: E402

from app.serve import textual_serve_internals  # noqa: E402
from app.serve.textual_serve_internals import PRIVATE_NAMES, TabApp  # noqa: E402
from tests.serve.served import alive, wait_until  # noqa: E402


async def _noop(*_args) -> None:
    return None


def test_every_private_name_exists_in_the_installed_textual_serve() -> None:
    service = AppService("true", write_bytes=_noop, write_str=_noop, close=_noop, download_manager=DownloadManager())
    server = Server("true")
    for name in PRIVATE_NAMES:
        owner, attribute = name.split(".")
        instance = {"AppService": service, "Server": server}[owner]
        assert hasattr(instance, attribute), f"textual-serve no longer has {name}: {PRIVATE_NAMES[name]}"


def test_the_one_module_lists_what_it_uses() -> None:
    source = Path(textual_serve_internals.__file__).read_text()
    for name in PRIVATE_NAMES:
        assert name.split(".")[1] in source.split("PRIVATE_NAMES = {", 1)[1].split("}", 1)[1], name


async def test_an_app_that_ignores_quit_is_ended(monkeypatch, tmp_path: Path) -> None:
    """It says it is a Textual app, then sleeps through the quit request: SIGTERM ends it."""
    monkeypatch.setattr(textual_serve_internals, "QUIT_GRACE", 0.5)
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text("import sys, time\nsys.stdout.write('__GANGLION__\\n'); sys.stdout.flush()\ntime.sleep(600)\n")
    sent: list[bytes] = []

    async def write_bytes(data: bytes) -> None:
        sent.append(data)

    tab = TabApp(f"exec {sys.executable} {stubborn}", write_bytes=write_bytes, write_str=_noop, close=_noop,
                 download_manager=DownloadManager())
    await tab.start(80, 24)
    pid = tab.pid
    assert pid is not None and alive(pid)
    await asyncio.wait_for(tab.stop(), 30)
    await asyncio.to_thread(wait_until, lambda: not alive(pid), 10, "the stubborn app to end")
    await tab.stop()  # twice is harmless
