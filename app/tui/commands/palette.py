"""Command palette entries (Ctrl+P): every Whimbrel action, plus one entry per open workstream."""

from __future__ import annotations

from typing import Iterator

from textual.app import SystemCommand

from app.tui.commands.keymap import main_key
from app.tui.workstreams.tool_mode_wiring import cycle_tool_mode


def whimbrel_commands(app) -> Iterator[SystemCommand]:
    """The palette's entries; each names the key in force for it ([keymap] applied)."""
    def key(binding_id: str) -> str:
        return main_key(app, binding_id)

    actions = [
        ("New workstream", f"Open a fresh workstream in a new tab ({key('new_workstream')})",
         app.action_new_workstream),
        ("Next needing attention", f"Jump to the next workstream waiting for approval ({key('next_attention')})",
         app.action_next_attention),
        ("Split pane side by side", f"Split the focused pane vertically ({key('split_side_by_side')})",
         lambda: app.action_split("horizontal")),
        ("Split pane stacked", f"Split the focused pane horizontally ({key('split_stacked')})",
         lambda: app.action_split("vertical")),
        ("Close pane", f"Close the focused pane; its workstream stays open ({key('close_pane')})",
         app.action_close_pane),
        ("Focus next pane", f"Move focus to the next pane ({key('focus_next_pane')})", app.action_focus_next_pane),
        ("Next tab", f"Switch to the next workstream tab ({key('next_tab')})", lambda: app.action_cycle_tab(1)),
        ("Previous tab", f"Switch to the previous workstream tab ({key('previous_tab')})",
         lambda: app.action_cycle_tab(-1)),
        ("Resume a saved workstream", "Browse and search history (/resume)", app.action_resume_browser),
        ("Team view", "Live instances on this store, who and where, their workstreams; open one (/team)",
         lambda: _open_team(app)),
        ("Cancel turn", f"Stop the focused workstream's running turn ({key('cancel_turn')})",
         lambda: app.turns.cancel(app.workstream)),
        ("Edit the prompt in $EDITOR",
         f"Compose the prompt in $VISUAL or $EDITOR; saving brings it back ({key('edit_prompt')})",
         lambda: app.main_screen.action_edit_prompt()),
        ("Copy the last reply",
         f"The focused workstream's last reply, to the clipboard via OSC 52 ({key('copy_reply')})",
         app.daily.copy_reply),
        ("Copy a code block", f"A code block of the last reply, to the clipboard; a picker when there are several "
         f"({key('copy_code')})",
         app.daily.copy_code),
        ("Settings…", "Theme, bell, limits, default model and keys, saved to config.toml (/settings)",
         lambda: app.run_worker(app.daily.open_settings(), group="settings", exit_on_error=False)),
        ("Slash command help", "List every /command (/help)", app.action_help),
        ("Switch model…", "Pick the model of the focused workstream (/model)", app.action_pick_model),
        ("Show cost", "Tokens and cost per workstream (/cost)",
         lambda: app.run_worker(app.show_cost(), group="cost", exit_on_error=False)),
        ("Set up a model…", "Detected API keys and local servers (/setup)", app.open_setup),
        ("MCP inspector", f"Servers, tools, resources, prompts and the protocol log; add or remove servers "
         f"({key('mcp_inspector')}, /mcp)",
         app.mcp.open_inspector),
        ("Permission rules", "List, add and delete rules; broken ones; review the project files (/policy)",
         app.permissions.open_policy_screen),
        ("Audit log", "Every tool call and who decided, with filters (/audit)", app.permissions.open_audit_screen),
        ("Cycle permission mode", f"ask → accept-edits → plan → auto for this workstream ({key('cycle_mode')})",
         app.permissions.cycle_mode),
        ("Cycle tool mode", "native → code (one run_code tool, the tools as Python) → both for this workstream "
         "(/tools mode)", lambda: cycle_tool_mode(app)),
    ]
    for title, help_text, callback in actions:
        yield SystemCommand(title, help_text, callback)
    if app.manager is not None:
        from widgets.tab_bar import TabBar

        app.workspace.refresh_chrome()  # the tabs show the current names: the entries repeat them as shown
        tabs = app.main_screen.query_one(TabBar).tabs
        for number, tab in enumerate(tabs, start=1):
            yield SystemCommand(f"Go to {number}: {tab.name}", f"Switch to workstream {number} "
                                f"({tab.state})", lambda n=number: app.action_switch_tab(n - 1))


def _open_team(app) -> None:
    from app.tui.screens.team import open_team

    open_team(app)
