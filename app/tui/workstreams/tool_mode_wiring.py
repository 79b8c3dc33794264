"""The window's side of code mode: `/tools [mode native|code|both|default]` and the palette entry that
cycles the mode (the status bar's marker is widgets/tool_mode_marker.py)."""

from __future__ import annotations

from app.engine.commands import CommandError

MODES = ("native", "code", "both")
USAGE = "usage: /tools, or /tools mode native|code|both|default"


async def tools_command(app, view, args: str) -> None:
    """/tools: the mode and where it comes from; /tools mode X switches this workstream."""
    modes = getattr(view.workstream.session, "tool_modes", None)
    if modes is None:
        raise CommandError("This workstream's tools are not Whimbrel's (an external agent's tab).")
    words = args.split()
    if not words:
        from tools.visibility import visible_tools

        session = view.workstream.session
        names = ", ".join(s.name for s in visible_tools(session.registry, session.tool_scope)) or "none"
        await view.transcript.add_notice(f"Tool mode: {modes.current()} ({modes.source()}).\n"
                                         f"Sent to the model: {names}.\n{USAGE}")
        return
    if words[0] != "mode" or len(words) != 2 or words[1] not in (*MODES, "default"):
        raise CommandError(USAGE)
    await modes.set(words[1])  # the transcript says so (the ToolModeChanged event)
    app.workspace.refresh_chrome()


def cycle_tool_mode(app) -> None:
    """The palette entry: native → code → both → native for the focused workstream."""
    workstream = app.workstream
    modes = getattr(getattr(workstream, "session", None), "tool_modes", None)
    if modes is None:
        app.notify("This workstream has no tool mode (an external agent's tab).", severity="warning")
        return
    following = MODES[(MODES.index(modes.current()) + 1) % len(MODES)]

    async def switch() -> None:
        await modes.set(following)
        app.workspace.refresh_chrome()
        app.notify(f"Tool mode: {following}")

    app.run_worker(switch(), group="tool-mode", exit_on_error=False)
