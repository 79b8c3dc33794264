"""web_search against local servers speaking SearxNG's and Tavily's APIs; not offered without one."""

from __future__ import annotations

from typing import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from app.settings.config import load_config
from app.engine.tool_setup import search_backend
from tests.fake_llm.uvicorn_thread import ServedOnThread, UvicornThread
from tests.tools.helpers import run
from tools.context import ToolContext
from tools.registry import ToolRegistry
from tools.visibility import ToolScope, visible_tools
from tools.web_search import SearchBackend, unavailable_tools

RESULT = {"title": "Whimbrel - Wikipedia", "url": "https://en.wikipedia.org/wiki/Whimbrel",
          "content": "The whimbrel is a wader in the large family Scolopacidae."}


class SearchServers(ServedOnThread):
    """/searxng/search (GET, format=json) and /tavily/search (POST, bearer key); `seen` records queries."""

    KEY = "tvly-test-key-123"

    def __init__(self) -> None:
        self.seen: list[dict] = []
        self._runner = UvicornThread(Starlette(routes=[
            Route("/searxng/search", self._searxng), Route("/tavily/search", self._tavily, methods=["POST"]),
            Route("/broken/search", self._broken)]))

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _searxng(self, request: Request):
        if request.query_params.get("format") != "json":
            return PlainTextResponse("forbidden", status_code=403)
        self.seen.append({"q": request.query_params["q"]})
        return JSONResponse({"query": request.query_params["q"], "results": [RESULT] * 8})

    async def _tavily(self, request: Request):
        if request.headers.get("authorization") != f"Bearer {self.KEY}":
            return JSONResponse({"detail": "unauthorized"}, status_code=401)
        body = await request.json()
        self.seen.append(body)
        return JSONResponse({"query": body["query"], "results": [RESULT] * body["max_results"]})

    async def _broken(self, request: Request):
        return PlainTextResponse("<html>oops</html>")


@pytest.fixture(scope="module")
def servers() -> Iterator[SearchServers]:
    with SearchServers() as served:
        yield served


def ctx_for(workspace, backend: SearchBackend | None) -> ToolContext:
    return ToolContext(workspace=workspace, search_backend=backend)


async def test_searxng(registry: ToolRegistry, servers: SearchServers, workspace) -> None:
    ctx = ctx_for(workspace, SearchBackend("searxng", servers.url("/searxng")))
    text, is_error = await run(registry, ctx, "web_search", {"query": "whimbrel migration", "max_results": 3})
    assert not is_error and text.startswith("Results for 'whimbrel migration':")
    assert text.count("https://en.wikipedia.org/wiki/Whimbrel") == 3 and "Scolopacidae" in text
    assert servers.seen[-1] == {"q": "whimbrel migration"}


async def test_tavily_with_its_key(registry, servers, workspace) -> None:
    ctx = ctx_for(workspace, SearchBackend("tavily", servers.url("/tavily"), SearchServers.KEY))
    text, is_error = await run(registry, ctx, "web_search", {"query": "whimbrel", "topic": "news"})
    assert not is_error and text.count("1. Whimbrel - Wikipedia") == 1 and "5. " in text
    assert servers.seen[-1] == {"query": "whimbrel", "max_results": 5, "topic": "news"}
    bad = ctx_for(workspace, SearchBackend("tavily", servers.url("/tavily"), "wrong"))
    text, is_error = await run(registry, bad, "web_search", "whimbrel")
    assert is_error and "Tavily refused the API key" in text


async def test_a_backend_answering_nonsense_is_words(registry, servers, workspace) -> None:
    ctx = ctx_for(workspace, SearchBackend("searxng", servers.url("/broken")))
    text, is_error = await run(registry, ctx, "web_search", "x")
    assert is_error and "not JSON" in text


def test_not_offered_without_a_backend(registry: ToolRegistry, workspace) -> None:
    def names(ctx: ToolContext) -> list[str]:
        return [s.name for s in visible_tools(registry, ToolScope(hidden=unavailable_tools(ctx)))]

    assert "web_search" not in names(ctx_for(workspace, None))
    assert "web_search" in names(ctx_for(workspace, SearchBackend("searxng", "http://127.0.0.1:1")))


def test_backend_from_config(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[tools]\nsearxng_url = "http://127.0.0.1:8888"\n')
    assert search_backend(load_config(path), env={}) == SearchBackend("searxng", "http://127.0.0.1:8888")
    path.write_text('[tools]\ntavily_url = "http://127.0.0.1:9"\n')
    assert search_backend(load_config(path), env={"TAVILY_API_KEY": "k"}) == \
        SearchBackend("tavily", "http://127.0.0.1:9", "k")
    assert search_backend(load_config(path), env={}) is None
