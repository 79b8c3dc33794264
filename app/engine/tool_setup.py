"""Config → a session's tool settings: what web tools may reach, and when tool search defers tools;
and the tool list of each request, as the provider answering it should get it."""

from __future__ import annotations

import os
from typing import Any, Mapping

from tools.address_policy import AddressPolicy
from tools.pinned_fetch import FetchLimits, WebAccess
from tools.tool_search import ToolSearch
from tools.visibility import schemas
from tools.web_search import TAVILY_URL, SearchBackend, unavailable_tools, with_native_search


def web_access(config: Any) -> WebAccess:
    """The [tools] web_* settings of a loaded Config (defaults without one)."""
    if config is None:
        return WebAccess()
    return WebAccess(policy=AddressPolicy(allow_hosts=tuple(config.web_allow_hosts),
                                          allow_networks=tuple(config.web_allow_networks)),
                     limits=FetchLimits(max_bytes=config.web_max_bytes, timeout=config.web_timeout))


def search_backend(config: Any, env: Mapping[str, str] = os.environ) -> SearchBackend | None:
    """SearxNG when [tools] searxng_url is set, else Tavily with a key ([tools] tavily_api_key or
    $TAVILY_API_KEY), else None (web_search is then not offered)."""
    if config is not None and config.searxng_url:
        return SearchBackend("searxng", config.searxng_url)
    key = (config.tavily_api_key if config is not None else None) or env.get("TAVILY_API_KEY")
    if key:
        return SearchBackend("tavily", (config.tavily_url if config is not None else None) or TAVILY_URL, key)
    return None


def settings_with_mode(settings: Mapping[str, Any] | None, tool_mode: str | None) -> dict[str, Any]:
    """A workstream's stored settings with a command line's --tools-mode in place of its own mode."""
    from app.engine.code_mode import SETTING

    return {**(settings or {}), **({SETTING: tool_mode} if tool_mode else {})}


def configure_tools(session: Any, config: Any, settings: Mapping[str, Any] | None = None) -> None:
    """Apply [tools] settings to a new session (its context and its top-level tool scope); `settings`
    are the workstream's stored ones (its own tool mode)."""
    from app.engine import code_mode

    code_mode.attach(session, config, settings)
    session.tool_context.web = web_access(config)
    session.tool_context.search_backend = search_backend(config)
    session.tool_scope.hidden = unavailable_tools(session.tool_context)
    session.native_web_search = bool(getattr(config, "web_search_native", False))
    if config is not None:
        session.tool_scope.search = ToolSearch(threshold=config.tool_search_threshold, mode=config.tool_search)
        session.subagents.agent_model = config.agent_model


def request_tools(session: Any, provider: Any) -> list[dict[str, Any]]:
    """The tool list for a request to `provider` (each model of a fallback chain gets its own): what
    it may see, which is what may be dispatched until the next request (tools/visibility.py). A
    provider that defers tools itself gets them marked `defer_loading` beside its own tool search;
    with [tools] web_search_native, its own web search in place of ours."""
    search = session.tool_scope.search
    if search is not None:
        search.native = bool(getattr(provider, "native_tool_search", False))
    tools = schemas(session.registry, session.tool_scope)
    if session.native_web_search:
        tools = with_native_search(tools, getattr(provider, "name", ""))
    return tools
