"""What each slash command does in the TUI. Parsing and the command table live in app/engine/commands.py."""

from __future__ import annotations

from pathlib import Path

from app.tui import checkpoint_wiring
from app.tui import memory_commands
from app.tui.workstreams import tool_mode_wiring
from app.engine.commands import CommandError, parse
from app.tui.screens.confirm import ConfirmScreen


async def run_command(app, view, text: str) -> None:
    """Run one '/command args' typed in `view`'s prompt. Raises CommandError with a one-line message."""
    command, args = parse(text)
    handler = HANDLERS[command.name]
    await handler(app, view, args)


async def _help(app, view, args: str) -> None:
    app.action_help()


async def _ws(app, view, args: str) -> None:
    words = args.split()
    if not words:
        lines = []
        for number, workstream in enumerate(app.manager.workstreams, start=1):
            marker = "▶" if workstream.id == app.focused_id else " "
            waiting = f"  ⚑ {len(workstream.pending)} waiting" if workstream.pending else ""
            lines.append(f"{marker} {number}. {workstream.name} — {workstream.state}{waiting}  ({workstream.id[:8]})")
        await view.transcript.add_notice("Open workstreams:\n" + "\n".join(lines))
    elif words[0] == "new":
        await app.workspace.new_workstream()
        if len(words) > 1:
            await _name(app, app.main_screen.view_for(app.focused_id), " ".join(words[1:]))
    elif words[0] == "close":
        target = app.manager.find(words[1]) if len(words) > 1 else view.workstream
        await app.workspace.close_workstream(target)
    else:
        try:
            app.workspace.show_workstream(app.manager.find(words[0]))
        except LookupError as error:
            raise CommandError(str(error)) from None


async def _new(app, view, args: str) -> None:
    await app.workspace.new_workstream()


async def _agent(app, view, args: str) -> None:
    from app.tui.workstreams.agent_wiring import agent_names, open_agent_workstream

    if not args.strip():
        names = ", ".join(agent_names(app)) or "none (add [agents.NAME] with command and args to config.toml)"
        raise CommandError(f"Usage: /agent NAME — configured agents: {names}")
    try:
        await open_agent_workstream(app, args.strip())
    except LookupError as error:
        raise CommandError(str(error)) from None


async def _name(app, view, args: str) -> None:
    if not args:
        raise CommandError("Usage: /name <alias>")
    try:
        await app.manager.rename(view.workstream, args)
    except ValueError as error:
        raise CommandError(str(error)) from None
    app.workspace.refresh_chrome()
    await view.transcript.add_notice(f"This workstream is now “{args.strip()}”.")


async def _clear(app, view, args: str) -> None:
    await view.workstream.session.clear_context()
    await view.transcript.add_notice("Context cleared: the model starts fresh; the history above stays saved.")


async def _resume(app, view, args: str) -> None:
    from app.tui.screens.resume import ResumeScreen

    def opened(workstream_id: str | None) -> None:
        if workstream_id:
            app.run_worker(app.workspace.open_workstream(workstream_id), group="open", exit_on_error=False)

    app.push_screen(ResumeScreen(app.store, args), callback=opened)


async def _team(app, view, args: str) -> None:
    from app.tui.screens.team import open_team

    open_team(app)


async def _delete(app, view, args: str) -> None:
    workstream = view.workstream

    def confirmed(answer: bool | None) -> None:
        if answer:
            app.run_worker(app.workspace.forget_workstream(workstream.id), group="delete", exit_on_error=False)

    app.push_screen(ConfirmScreen(f"Delete “{workstream.name}” and all its history?"), callback=confirmed)


async def _history(app, view, args: str) -> None:
    history = view.prompt.past_prompts[-20:]
    if not history:
        await view.transcript.add_notice("No prompts sent in this workstream yet.")
        return
    lines = [f"{i}. {' '.join(p.split())[:100]}" for i, p in enumerate(history, start=1)]
    await view.transcript.add_notice("Recent prompts (Up/Down recalls them):\n" + "\n".join(lines))


async def _rewind(app, view, args: str, *, turns: int | None = None) -> int:
    if turns is None and args.strip() in ("", "undo"):
        return await checkpoint_wiring.rewind_command(app, view, args)  # the rewind screen, or its undo
    if turns is None:
        if not args.strip().isdigit() or int(args) < 1:
            raise CommandError("Usage: /rewind N — N is the number of turns to drop, e.g. /rewind 1; "
                               "/rewind alone chooses a message (files too), /rewind undo takes one back")
        turns = int(args)
    workstream = view.workstream
    if workstream.busy:
        raise CommandError("A turn is running; press Esc to cancel it first.")
    removed = await workstream.session.rewind(turns)
    await view.transcript.clear_all()
    await view.transcript.show_history(workstream.session.messages)
    await view.transcript.add_notice(f"Rewound {turns} turn(s): {removed} message(s) removed.")
    return removed


async def _fork(app, view, args: str) -> None:
    await checkpoint_wiring.fork_command(app, view, args)


async def _worktree(app, view, args: str) -> None:
    await checkpoint_wiring.worktree_command(app, view, args)


async def _subagent(app, view, args: str) -> None:
    """/subagent [name | close]: the newest (or the named) sub-agent in a split pane of its own, live."""
    from app.tui.workstreams.subagent_panes import PaneRefused, close_subagent_panes, open_subagent_pane

    word = args.strip()
    if word == "close":
        if not await close_subagent_panes(app, view.workstream.id):
            raise CommandError("No sub-agent pane of this workstream is open.")
        return
    try:
        await open_subagent_pane(app, view, word)
    except PaneRefused as error:
        raise CommandError(str(error)) from None


async def _retry(app, view, args: str) -> None:
    last = next((m.content for m in reversed(view.workstream.session.messages) if m.role == "user"), None)
    if last is None:
        raise CommandError("Nothing to retry yet.")
    await _rewind(app, view, "", turns=1)
    app.turns.submit(view.workstream, last)


async def _export(app, view, args: str) -> None:
    from app.engine.export import export_markdown

    workstream = view.workstream
    slug = "".join(c if c.isalnum() else "-" for c in workstream.name.lower()).strip("-")[:40] or "transcript"
    path = Path(args.strip() or f"{slug}.md").expanduser()
    if not path.is_absolute():
        path = Path(workstream.workdir or ".") / path
    importable = path.suffix.lower() == ".json"  # what `whimbrel import` reads; Markdown is for reading
    if importable:
        text = await _export_json(app, workstream)
    else:
        text = export_markdown(workstream.name, workstream.session.messages)
    try:
        await _write_text(path, text)
    except OSError as error:
        raise CommandError(f"Could not write {path}: {error.strerror or error}") from None
    how = ("as JSON: `whimbrel import` reads it" if importable else
           "as Markdown, for reading (`/export NAME.json` writes one `whimbrel import` reads)")
    await view.transcript.add_notice(f"Exported {len(workstream.session.messages)} messages to {path} {how}")


async def _export_json(app, workstream) -> str:
    import json

    from app.transfer.workstream_transfer import TransferError, export_data

    if app.store is None or not workstream.id:
        raise CommandError("This workstream is not stored, so there is nothing to export as JSON.")
    try:
        data = await app.store.run(export_data, app.store.store, workstream.id)
    except TransferError as error:
        raise CommandError(str(error)) from None
    return json.dumps(data, indent=2, ensure_ascii=False)


async def _write_text(path: Path, text: str) -> None:
    import asyncio

    def write() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    await asyncio.to_thread(write)


async def _model(app, view, args: str) -> None:
    if app.models is None:
        raise CommandError("No model is configured yet: use /setup, or start with --model NAME.")
    alias = args.strip()
    if not alias:
        app.action_pick_model()
        return
    try:
        await view.workstream.session.set_model(alias)
    except KeyError as error:
        raise CommandError(str(error.args[0] if error.args else error)) from None


async def _theme(app, view, args: str) -> None:
    from app.tui.comforts.theming import open_theme_picker, use_theme

    name = args.strip()
    if not name:
        open_theme_picker(app)
        return
    problem = use_theme(app, name)
    if problem:
        raise CommandError(problem)


async def _cost(app, view, args: str) -> None:
    await app.show_cost()


async def _watches(app, view, args: str) -> None:
    from app.tui.permissions.watch_wiring import show_watches

    await show_watches(app)


async def _compact(app, view, args: str) -> None:
    if view.workstream.busy:
        raise CommandError("A turn is running; compact when it has finished (or press Esc).")
    app.run_worker(view.workstream.session.compact(args.strip() or None), group=f"compact-{view.workstream.id}",
                   exit_on_error=False)


async def _setup(app, view, args: str) -> None:
    app.open_setup()


async def _mcp(app, view, args: str) -> None:
    words = args.split()
    if not words:
        app.mcp.open_inspector()
        return
    if words[0] not in ("refresh", "status"):
        raise CommandError("Usage: /mcp (the inspector, also F9)  or  /mcp status  or  /mcp refresh [server]")
    if words[0] == "refresh" and app.mcp.manager is not None:
        from tools.errors import ToolError

        try:
            await app.mcp.manager.refresh(words[1] if len(words) > 1 else None)
        except ToolError as error:  # an unknown server name
            raise CommandError(str(error)) from None
        await view.transcript.add_notice("MCP catalogs refreshed.")
    await view.transcript.add_notice(app.mcp.summary())


async def _split(app, view, args: str) -> None:
    direction = {"": "horizontal", "h": "horizontal", "v": "vertical"}.get(args.strip().lower())
    if direction is None:
        raise CommandError("Usage: /split [h|v] — h splits side by side, v stacks")
    await app.workspace.split(direction)


async def _unsplit(app, view, args: str) -> None:
    await app.workspace.close_pane()


async def _quit(app, view, args: str) -> None:
    app.exit()


async def _image(app, view, args: str) -> None:
    from app.tui.comforts.image_attach import attach_image  # app/mentions/images.py checks the file and the model

    await attach_image(app, view, args)


HANDLERS = {
    "help": _help, "ws": _ws, "new": _new, "name": _name, "clear": _clear, "resume": _resume, "team": _team,
    "delete": _delete, "history": _history, "retry": _retry, "rewind": _rewind, "export": _export,
    "split": _split, "unsplit": _unsplit, "quit": _quit, "model": _model, "cost": _cost, "watches": _watches,
    "compact": _compact, "setup": _setup, "mcp": _mcp, "fork": _fork, "worktree": _worktree,
    "subagent": _subagent, "theme": _theme,
    "settings": lambda app, view, args: app.daily.open_settings(), "image": _image, "agent": _agent,
    "policy": lambda app, view, args: _later(app.permissions.open_policy_screen),
    "audit": lambda app, view, args: _later(app.permissions.open_audit_screen),
    "network": lambda app, view, args: _network(app, view, args),
    **memory_commands.HANDLERS,
    "tools": lambda app, view, args: tool_mode_wiring.tools_command(app, view, args),
}


async def _network(app, view, args: str) -> None:
    await view.transcript.add_notice(await app.permissions.switch_network(view.workstream, args))


async def _later(action) -> None:
    """/policy, /audit: open their screen (app/tui/permissions/permission_wiring.py)."""
    action()
