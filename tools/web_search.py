"""web_search: a query sent to the configured backend — a SearxNG instance (its JSON API) or Tavily
(with a key) — and the results as a short list. Without a backend the tool is not offered at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tools.errors import ToolError

if TYPE_CHECKING:  # tools.context holds a SearchBackend
    from tools.context import ToolContext

TAVILY_URL = "https://api.tavily.com"
# In a tool list, the provider's own (server-side) web search, which providers that have one translate
# (Anthropic's web_search server tool, OpenAI Responses' web_search) and the others drop.
NATIVE_WEB_SEARCH: dict[str, Any] = {"type": "native_web_search"}
DEFAULT_RESULTS, MAX_RESULTS = 5, 20
SNIPPET_CHARS = 500


@dataclass(frozen=True)
class SearchBackend:
    """`kind` is "searxng" (url) or "tavily" (api_key, url overridable); the user configured it."""

    kind: str
    url: str
    api_key: str = ""
    timeout: float = 20.0


async def _searxng(backend: SearchBackend, client: Any, query: str, count: int) -> list[dict[str, Any]]:
    response = await client.get(backend.url.rstrip("/") + "/search", params={"q": query, "format": "json"})
    if response.status_code == 403:
        raise ToolError("the SearxNG instance refused JSON output: enable `json` under search.formats in its "
                        "settings.yml")
    response.raise_for_status()
    return list(response.json().get("results", []))[:count]


async def _tavily(backend: SearchBackend, client: Any, query: str, count: int, topic: str) -> list[dict[str, Any]]:
    response = await client.post(backend.url.rstrip("/") + "/search",
                                 json={"query": query, "max_results": count, "topic": topic},
                                 headers={"Authorization": f"Bearer {backend.api_key}"})
    if response.status_code in (401, 403):
        raise ToolError("Tavily refused the API key ([tools] tavily_api_key or $TAVILY_API_KEY)")
    response.raise_for_status()
    return list(response.json().get("results", []))[:count]


NATIVE_PROVIDERS = frozenset({"anthropic", "openai-responses"})


def with_native_search(tools: list[dict[str, Any]], provider_name: str) -> list[dict[str, Any]]:
    """The tool list with the provider's own web search in place of ours, where the provider has one
    ([tools] web_search_native); unchanged for a provider without one."""
    if provider_name not in NATIVE_PROVIDERS:
        return tools
    return [t for t in tools if t.get("function", {}).get("name") != "web_search"] + [NATIVE_WEB_SEARCH]


def unavailable_tools(ctx: ToolContext) -> frozenset[str]:
    """Tools this context cannot serve, so they are not offered: web_search without a backend."""
    return frozenset() if ctx.search_backend is not None else frozenset({"web_search"})


def format_results(query: str, results: list[dict[str, Any]]) -> str:
    if not results:
        return f"No results for {query!r}."
    lines = [f"Results for {query!r}:"]
    for n, item in enumerate(results, 1):
        snippet = " ".join(str(item.get("content") or item.get("snippet") or "").split())[:SNIPPET_CHARS]
        lines.append(f"{n}. {item.get('title') or '(no title)'}\n   {item.get('url', '')}\n   {snippet}")
    return "\n".join(lines)


async def web_search(args: dict[str, Any], ctx: ToolContext) -> str:
    backend = ctx.search_backend
    if backend is None:
        raise ToolError("web_search has no backend: set [tools] searxng_url or tavily_api_key in the config")
    query = str(args["query"]).strip()
    if not query:
        raise ToolError("web_search needs a query")
    count = max(1, min(int(args.get("max_results") or DEFAULT_RESULTS), MAX_RESULTS))
    import httpx2  # lazy: heavy

    try:
        async with httpx2.AsyncClient(timeout=backend.timeout, trust_env=False) as client:
            if backend.kind == "tavily":
                results = await _tavily(backend, client, query, count, str(args.get("topic") or "general"))
            else:
                results = await _searxng(backend, client, query, count)
    except httpx2.HTTPStatusError as exc:
        raise ToolError(f"the {backend.kind} search failed: HTTP {exc.response.status_code}") from None
    except httpx2.HTTPError as exc:
        raise ToolError(f"the {backend.kind} search failed: {exc or type(exc).__name__}") from None
    except ValueError:
        raise ToolError(f"the {backend.kind} search answered something that is not JSON") from None
    return format_results(query, results)
