"""Command palette entries (Ctrl+P): every Whimbrel action, plus one entry per open workstream."""

from __future__ import annotations

from typing import Iterator

from textual.app import SystemCommand

from app.tool_mode_wiring import cycle_tool_mode


def whimbrel_commands(app) -> Iterator[SystemCommand]:
    actions = [
        ("New workstream", "Open a fresh workstream in a new tab (Ctrl+N)", app.action_new_workstream),
        ("Next needing attention", "Jump to the next workstream waiting for approval (Ctrl+G)",
         app.action_next_attention),
        ("Split pane side by side", "Split the focused pane vertically (F3)", lambda: app.action_split("horizontal")),
        ("Split pane stacked", "Split the focused pane horizontally (F4)", lambda: app.action_split("vertical")),
        ("Close pane", "Close the focused pane; its workstream stays open (F8)", app.action_close_pane),
        ("Focus next pane", "Move focus to the next pane (F2)", app.action_focus_next_pane),
        ("Next tab", "Switch to the next workstream tab (Ctrl+PageDown)", lambda: app.action_cycle_tab(1)),
        ("Previous tab", "Switch to the previous workstream tab (Ctrl+PageUp)", lambda: app.action_cycle_tab(-1)),
        ("Resume a saved workstream", "Browse and search history (/resume)", app.action_resume_browser),
        ("Cancel turn", "Stop the focused workstream's running turn (Esc)",
         lambda: app.cancel_turn(app.workstream)),
        ("Edit the prompt in $EDITOR", "Compose the prompt in $VISUAL or $EDITOR; saving brings it back (Ctrl+O)",
         lambda: app.main_screen.action_edit_prompt()),
        ("Copy the last reply", "The focused workstream's last reply, to the clipboard via OSC 52 (F6)",
         app.action_copy_reply),
        ("Copy a code block", "A code block of the last reply, to the clipboard; a picker when there are several (F7)",
         app.action_copy_code),
        ("Settings…", "Theme, bell, limits, default model and keys, saved to config.toml (/settings)",
         lambda: app.run_worker(app.open_settings(), group="settings", exit_on_error=False)),
        ("Slash command help", "List every /command (/help)", app.action_help),
        ("Switch model…", "Pick the model of the focused workstream (/model)", app.action_pick_model),
        ("Show cost", "Tokens and cost per workstream (/cost)",
         lambda: app.run_worker(app.show_cost(), group="cost", exit_on_error=False)),
        ("Set up a model…", "Detected API keys and local servers (/setup)", app.open_setup),
        ("MCP inspector", "Servers, tools, resources, prompts and the protocol log; add or remove servers (F9, /mcp)",
         app.action_mcp_inspector),
        ("Permission rules", "List, add and delete rules; broken ones and the project file (/policy)",
         app.action_policy_screen),
        ("Audit log", "Every tool call and who decided, with filters (/audit)", app.action_audit_screen),
        ("Cycle permission mode", "ask → accept-edits → plan → auto for this workstream (Shift+Tab)",
         app.action_cycle_mode),
        ("Cycle tool mode", "native → code (one run_code tool, the tools as Python) → both for this workstream "
         "(/tools mode)", lambda: cycle_tool_mode(app)),
    ]
    for title, help_text, callback in actions:
        yield SystemCommand(title, help_text, callback)
    if app.manager is not None:
        from widgets.tab_bar import TabBar

        app.refresh_chrome()  # the tabs show the current names: the entries repeat them as shown
        tabs = app.main_screen.query_one(TabBar).tabs
        for number, tab in enumerate(tabs, start=1):
            yield SystemCommand(f"Go to {number}: {tab.name}", f"Switch to workstream {number} "
                                f"({tab.state})", lambda n=number: app.action_switch_tab(n - 1))
