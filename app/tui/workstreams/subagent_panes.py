"""Sub-agents watched in split panes of their own: `/subagent [name | close]`, F8 inside one, and
tidying up when the parent's tab goes.

App glue (UI room). A sub-agent's pane is a leaf of the app's layout tree (`layout.subagent_leaf`)
next to its parent's pane; the focused workstream never changes to it, so the prompt, the status
bar and approvals stay the parent's. Closing the pane only stops the watching: the sub-agent runs
inside its parent's tool call, which the pane never owns.
"""

from __future__ import annotations

from typing import Any

from app.engine.layout import MAX_PANES, LayoutError
from widgets.subagent_pane import SubagentPane

WIDE_ENOUGH = 100  # columns: a pane this wide is split side by side, a narrower one stacked


class PaneRefused(Exception):
    """The pane cannot be opened (no such sub-agent, too many panes); the text says why."""


async def open_subagent_pane(app: Any, view: Any, name: str = "") -> str:
    """Open the sub-agent `name` of `view`'s workstream (default: its newest) in a pane split off the
    parent's, replayed so far and then live; returns its name. Raises PaneRefused with the reason."""
    runs = view.subagent_runs
    agent = runs.pick(name)
    if agent is None:
        known = ", ".join(runs.events) or "none has run in this workstream yet"
        raise PaneRefused(f"No sub-agent {name!r} here (sub-agents: {known})." if name else
                          f"No sub-agent to watch: {known}.")
    tree = app.layout_tree
    pane = SubagentPane(view.workstream.id, agent, view.workstream.name)
    if tree is None or pane.leaf in tree:
        return agent  # already watched
    if len(tree.leaves()) >= MAX_PANES:
        raise PaneRefused(f"At most {MAX_PANES} panes; close one first (F8).")
    target = view.workstream.id if view.workstream.id in tree else app.focused_id
    area = app.main_screen.pane_area
    width = tree.regions(*area.size).get(target, (0, 0, area.size.width, 0))[2] if area.size.width else 0
    await area.mount(pane)
    pane.replay(runs.events[agent])
    try:
        tree.split(target, pane.leaf, "horizontal" if width >= WIDE_ENOUGH else "vertical")
    except LayoutError as error:
        await pane.remove()
        raise PaneRefused(str(error)) from None
    app.workspace.apply_layout()
    return agent


async def close_subagent_panes(app: Any, workstream_id: str, agent: str | None = None, *,
                               relayout: bool = True) -> int:
    """Close the panes watching `workstream_id`'s sub-agents (only `agent`'s when given); how many."""
    closing = [pane for pane in app.main_screen.pane_area.subagent_panes()
               if pane.parent_id == workstream_id and agent in (None, pane.agent)]
    for pane in closing:
        await _close(app, pane)
    if closing and relayout:
        app.workspace.apply_layout()
    return len(closing)


async def drop_unplaced_panes(app: Any) -> None:
    """Remove the sub-agent panes the layout no longer has a leaf for (the last workstream pane went)."""
    tree = app.layout_tree
    for pane in app.main_screen.pane_area.subagent_panes():
        if tree is None or pane.leaf not in tree:
            await pane.remove()


async def _close(app: Any, pane: SubagentPane) -> None:
    tree = app.layout_tree
    if tree is not None and pane.leaf in tree and len(tree.leaves()) > 1:
        tree.close(pane.leaf)
    await pane.remove()


def focused_subagent_pane(app: Any) -> SubagentPane | None:
    """The sub-agent pane that has the keyboard (its log was clicked or tabbed into), if any."""
    focused = app.screen.focused
    if focused is None:
        return None
    return next((w for w in focused.ancestors_with_self if isinstance(w, SubagentPane)), None)


async def close_focused_subagent_pane(app: Any) -> bool:
    """F8 while a sub-agent pane has the keyboard closes that pane (True); else False."""
    pane = focused_subagent_pane(app)
    if pane is None:
        return False
    await _close(app, pane)
    app.workspace.apply_layout()
    return True
