"""A local web site on 127.0.0.1 for web_fetch tests: a docs page, redirects, huge and slow bodies."""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.fake_llm.uvicorn_thread import ServedOnThread, UvicornThread

DOCS_PAGE = """<!doctype html><html><head><title>Whimbrel field guide</title>
<style>body { color: red }</style><script>var tracking = "SCRIPT-NOISE";</script></head>
<body><nav>Home | About | NAV-NOISE</nav>
<article><h1>Whimbrel field guide</h1>
<p>The whimbrel (<em>Numenius phaeopus</em>) migrates <strong>5,000 km</strong> without stopping.</p>
<p>Its bill is long and curved downwards.</p></article>
<footer>FOOTER-NOISE</footer></body></html>"""


def big_page(size: int) -> str:
    paragraph = "<p>" + "word " * 40 + "</p>\n"
    return "<html><head><title>Big</title></head><body><article>" + paragraph * (size // len(paragraph)) + \
        "</article></body></html>"


class LocalSite(ServedOnThread):
    """`url(path)` for a page; `redirect_target` is where /redirect sends the client; `hosts` records
    the Host header of each request."""

    def __init__(self) -> None:
        self.redirect_target = "/docs"
        self.hosts: list[str] = []
        self.big_size = 5_000_000
        routes = [Route("/docs", self._docs), Route("/redirect", self._redirect), Route("/endless", self._endless),
                  Route("/slow", self._slow), Route("/big", self._big), Route("/missing", self._missing),
                  Route("/image", self._image), Route("/plain", self._plain)]
        self._runner = UvicornThread(Starlette(routes=routes))

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    async def _docs(self, request: Request) -> Response:
        self.hosts.append(request.headers.get("host", ""))
        return HTMLResponse(DOCS_PAGE)

    async def _plain(self, request: Request) -> Response:
        return PlainTextResponse("just text")

    async def _redirect(self, request: Request) -> Response:
        return RedirectResponse(self.redirect_target, status_code=302)

    async def _missing(self, request: Request) -> Response:
        return PlainTextResponse("gone", status_code=404)

    async def _image(self, request: Request) -> Response:
        return Response(b"\x89PNG\r\n\x1a\n" + b"\0" * 100, media_type="image/png")

    async def _big(self, request: Request) -> Response:
        return HTMLResponse(big_page(self.big_size))

    async def _endless(self, request: Request) -> Response:
        async def body():
            chunk = b"<p>" + b"x" * 65_000 + b"</p>"
            while True:
                yield chunk
                await asyncio.sleep(0)
        return StreamingResponse(body(), media_type="text/html")

    async def _slow(self, request: Request) -> Response:
        async def body():
            yield b"<html><body><p>first bytes"
            while True:
                await asyncio.sleep(0.2)
                yield b"."
        return StreamingResponse(body(), media_type="text/html")
