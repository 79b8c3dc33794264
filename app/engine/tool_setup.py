"""Config → a session's tool settings: what web tools may reach, and when tool search defers tools."""

from __future__ import annotations

from typing import Any

from tools.address_policy import AddressPolicy
from tools.pinned_fetch import FetchLimits, WebAccess
from tools.tool_search import ToolSearch


def web_access(config: Any) -> WebAccess:
    """The [tools] web_* settings of a loaded Config (defaults without one)."""
    if config is None:
        return WebAccess()
    return WebAccess(policy=AddressPolicy(allow_hosts=tuple(config.web_allow_hosts),
                                          allow_networks=tuple(config.web_allow_networks)),
                     limits=FetchLimits(max_bytes=config.web_max_bytes, timeout=config.web_timeout))


def configure_tools(session: Any, config: Any) -> None:
    """Apply [tools] settings to a new session (its context and its top-level tool scope)."""
    session.tool_context.web = web_access(config)
    if config is not None:
        session.tool_scope.search = ToolSearch(threshold=config.tool_search_threshold, mode=config.tool_search)
        session.subagents.agent_model = config.agent_model
