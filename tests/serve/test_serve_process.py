"""`whimbrel serve` without a browser: a plain HTTP and websocket client checks the token and the
Origin, and each tab's app process is seen to end: when its websocket closes, when the server is
stopped, and when the server is killed outright."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.installed import places
from tests.serve.served import Served, alive, wait_until

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def served(fake_openai, tmp_path: Path):
    workdir, data_dir = places(tmp_path)
    with Served(tmp_path, "--base-url", fake_openai.base_url, "--model", "m", "--workdir", str(workdir),
                "--data-dir", str(data_dir)) as served:
        yield served


async def _fetch(url: str, **kwargs) -> tuple[int, str, dict]:
    async with aiohttp.ClientSession() as session:
        async with session.get(url, allow_redirects=False, **kwargs) as response:
            return response.status, await response.text(), dict(response.headers)


def _cookie(served: Served, token: str | None = None) -> dict[str, str]:
    return {"Cookie": f"whimbrel_serve{served.port}={token or served.token}"}


async def test_without_the_token_nothing_of_the_app_is_served(served: Served) -> None:
    for path in ("/", "/static/js/textual.js", "/static/css/xterm.css", "/ws", "/download/x", "/?token=wrong"):
        status, body, headers = await _fetch(served.base + path)
        assert status == 401, path
        assert "textual" not in body.lower() and "<" not in body, (path, body)
    status, _, _ = await _fetch(served.base + "/static/js/textual.js", headers=_cookie(served, "z" * 43))
    assert status == 401, "a wrong cookie is no cookie"

    status, _, headers = await _fetch(served.url)
    assert status == 303 and headers["Location"] == "/"
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    status, body, headers = await _fetch(served.base + "/", headers=_cookie(served))
    assert status == 200 and "textual.js" in body
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"
    assert not served.tab_pids()


async def _open_tab(served: Served, origin: str) -> aiohttp.ClientWebSocketResponse:
    session = aiohttp.ClientSession()
    try:
        return await session.ws_connect(served.base.replace("http", "ws") + "/ws?width=100&height=30",
                                        headers={**_cookie(served), "Origin": origin})
    except BaseException:
        await session.close()
        raise


async def test_a_foreign_origin_gets_no_websocket_and_no_app(served: Served) -> None:
    for origin in ("http://evil.example", "null", served.origin.replace("127.0.0.1", "localhost"), ""):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await _open_tab(served, origin)
        assert refused.value.status == 403, origin
    assert not served.tab_pids(), "a refused websocket starts no app process"
    status, _, _ = await _fetch(served.base + "/", headers={**_cookie(served), "Origin": "http://evil.example"})
    assert status == 403, "another site's request is refused, even with the cookie"

    async with aiohttp.ClientSession() as session:
        websocket = await session.ws_connect(served.base.replace("http", "ws") + "/ws",
                                             headers={**_cookie(served), "Origin": served.origin})
        (pid,) = await asyncio.to_thread(wait_until, served.tab_pids, 30, "the tab's app")
        first = await websocket.receive(timeout=60)  # the app paints
        assert first.type == aiohttp.WSMsgType.BINARY
        await websocket.close()
    await asyncio.to_thread(wait_until, lambda: not alive(pid), 60, f"app {pid} to end with its websocket")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
async def test_the_tabs_apps_end_with_the_server(served: Served, how: str) -> None:
    async with aiohttp.ClientSession() as session:
        tabs = [await session.ws_connect(served.base.replace("http", "ws") + "/ws",
                                         headers={**_cookie(served), "Origin": served.origin}) for _ in range(2)]
        pids = await asyncio.to_thread(wait_until, lambda: len(served.tab_pids()) == 2 and served.tab_pids(), 60,
                                       "two tabs' apps")
        for tab in tabs:
            await tab.receive(timeout=60)
        os.kill(served.process.pid, getattr(signal, how))
        await asyncio.to_thread(wait_until, lambda: not any(alive(p) for p in pids), 60,
                                f"the tabs' apps {pids} to end after the server's {how}")
        assert await asyncio.to_thread(served.process.wait, 30) == (0 if how == "SIGTERM" else -signal.SIGKILL)
