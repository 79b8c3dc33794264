"""The TUI's memory commands: /instructions, /memory, /init, and prompts starting with '#'."""

from __future__ import annotations

from app.engine.commands import CommandError

INIT_PROMPT = """\
Draft an AGENTS.md for this workspace: the instructions a coding agent needs here. Look around first \
(read the README, the build and test configuration, a few source files). Cover: what the project is, \
how to build, test and lint it (exact commands), the code layout, conventions (style, naming, \
formatting), and anything an agent must not do. Keep it short and factual; do not invent commands. \
Then write it to AGENTS.md in the workspace root with write_file (the user approves before it is \
written){existing}."""


def is_memory_note(text: str) -> bool:
    """A prompt that saves a memory: '#' then text ('#' alone, '##' headings and '#!' are prompts)."""
    stripped = text.strip()
    return stripped.startswith("#") and not stripped.startswith(("##", "#!")) and bool(stripped[1:].strip())


def _context(view):
    context = view.workstream.session.memory_context
    if context is None:
        raise CommandError("Memory is not available yet: the store is still opening.")
    return context


async def instructions(app, view, args: str) -> None:
    """/instructions: what was loaded and from where (loaded now when no turn has run yet)."""
    from app.memory.instructions import describe

    context = _context(view)
    if context.instructions is None or args.strip() == "reload":
        await context.reload_instructions()
    await view.transcript.add_notice(describe(context.instructions, context.workspace))


async def memory(app, view, args: str) -> None:
    """/memory [query]: the memory browser."""
    from app.screens.memory_browser import MemoryBrowser

    context = _context(view)
    app.push_screen(MemoryBrowser(app.memory_service, context.visibility, args.strip()))


async def init(app, view, args: str) -> None:
    """/init: the model drafts AGENTS.md; write_file asks for approval before it is written."""
    existing = (view.workstream.session.tool_context.workspace / "AGENTS.md").exists()
    note = "; an AGENTS.md exists already: read it and improve it rather than starting over" if existing else ""
    app.submit_prompt(view.workstream, INIT_PROMPT.format(existing=note))


def save_note(app, view, text: str) -> None:
    """'# text': ask the type and scope, then save the text as a memory in this workstream's view."""
    from app.screens.memory_note import MemoryNoteScreen

    context = view.workstream.session.memory_context
    if context is None or app.memory_service is None:
        app.notify("Memory is not available yet: the store is still opening.", severity="warning")
        return
    note = text.strip()[1:].strip()

    def chosen(answer) -> None:
        if answer is not None:
            app.run_worker(_save(app, view, context, note, *answer), group="memory", exit_on_error=False)

    app.push_screen(MemoryNoteScreen(note), callback=chosen)


async def _save(app, view, context, note: str, name: str, kind: str, scope: str) -> None:
    from app.memory.records import InvalidMemory

    try:
        await app.memory_service.save(context.visibility, name, note, type=kind, scope=scope,
                                      description=note.splitlines()[0][:200])
    except InvalidMemory as error:
        await view.transcript.add_notice(f"Memory not saved: {error}", "warning")


HANDLERS = {"memory": memory, "instructions": instructions, "init": init}
