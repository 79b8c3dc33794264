"""External ACP agents in the app: sessions for agent-backed workstreams, /agent NAME, stopping them at quit.

App glue (UI room): the engine side lives in app/acp/client_session.py.
"""

from __future__ import annotations

from typing import Any


def agent_session(app: Any, workstream_id: str, saved: Any, listener: Any) -> Any | None:
    """The session of an agent-backed workstream (None for a model-backed one, at no import cost)."""
    from app.acp import AGENT_KEY, AGENT_SESSION_KEY

    name = saved.settings.get(AGENT_KEY)
    if not name:
        return None
    from app.acp.client_session import ExternalAgentSession
    from app.settings.config import AgentConfig
    from tools.context import ToolContext
    from tools.registry import ToolRegistry

    config = app.options.config
    agent = (config.agents.get(name) if config is not None else None) or AgentConfig(name, command="")
    context = ToolContext(workspace=app.options.workdir.resolve(), bash_timeout=app.options.bash_timeout,
                          output_limit=app.options.output_limit)
    session = ExternalAgentSession(agent=agent, workstream_id=workstream_id, registry=ToolRegistry(),
                                   tool_context=context, emit=listener, store=app.store, messages=saved.messages,
                                   context_start=saved.context_start, guard=_guard(app, workstream_id, saved))
    session.stored_agent_session = saved.settings.get(AGENT_SESSION_KEY)
    return session


def _guard(app: Any, workstream_id: str, saved: Any) -> Any:
    """The workstream's permission gate: the agent's reads, writes and terminals on Whimbrel's side pass it."""
    permissions = getattr(app, "permissions", None)
    return permissions.guard_for(workstream_id, saved.settings) if permissions is not None else None


def agent_names(app: Any) -> list[str]:
    config = app.options.config
    return sorted(config.agents) if config is not None else []


async def open_agent_workstream(app: Any, name: str) -> Any:
    """A new tab whose workstream is driven by the configured agent `name`; LookupError when unknown."""
    from app.acp import AGENT_KEY

    if name not in agent_names(app):
        known = ", ".join(agent_names(app)) or "none: add [agents.NAME] with command (and args) to config.toml"
        raise LookupError(f"no agent named '{name}' (configured: {known})")
    workstream, evicted = await app.manager.create(protect=app.workspace.protected(), settings={AGENT_KEY: name})
    workstream.model = f"agent {name}"
    workstream.title_generated = True  # its conversation is not sent to Whimbrel's model for a title
    await app.workspace.mount_view(workstream, evicted)
    app.workspace.show_workstream(workstream)
    return workstream


async def stop_agents(app: Any) -> None:
    """At quit: every agent process is stopped and reaped."""
    from app.acp.client_session import ExternalAgentSession

    if app.manager is None:
        return
    for workstream in list(app.manager):
        if isinstance(workstream.session, ExternalAgentSession):
            await workstream.session.aclose()


def pick_new_workstream(app: Any) -> None:
    """Ctrl+N with a choice to make (agents configured, or a git workspace): ask whether the new tab
    runs on Whimbrel's model or an agent, and whether it works in its own git worktree."""
    from app.tui import checkpoint_wiring
    from app.tui.screens.new_workstream import NewWorkstreamScreen

    config = app.options.config
    agents = {name: " ".join([agent.command, *agent.args]) for name, agent in sorted(config.agents.items())} \
        if config is not None else {}
    model = app.models.settings(app.models.default).model if app.models is not None else ""

    def chosen(choice: Any) -> None:
        if choice is None:
            return
        if choice.agent == "":
            opening = checkpoint_wiring.new_workstream_in_worktree(app) if choice.worktree else app.workspace.new_workstream()
            app.run_worker(opening, group="tabs", exit_on_error=False)
        else:
            if choice.worktree:
                app.notify("A worktree is for Whimbrel's own workstreams; the agent works in the main tree.",
                           timeout=6)
            app.run_worker(open_agent_workstream(app, choice.agent), group="tabs", exit_on_error=False)

    app.push_screen(NewWorkstreamScreen(model, agents, worktree_possible=checkpoint_wiring.worktree_possible(app)),
                    callback=chosen)
