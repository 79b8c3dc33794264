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
    text = describe(context.instructions, context.workspace)
    if context.skill:
        text += f"\nStarted from skill {context.skill['name']} (version {context.skill['version']})."
    await view.transcript.add_notice(text)


async def memory(app, view, args: str) -> None:
    """/memory [query]: the memory browser."""
    from app.tui.screens.memory_browser import MemoryBrowser

    context = _context(view)
    app.push_screen(MemoryBrowser(app.memory_service, context.visibility, args.strip()))


async def init(app, view, args: str) -> None:
    """/init: the model drafts AGENTS.md; write_file asks for approval before it is written."""
    existing = (view.workstream.session.tool_context.workspace / "AGENTS.md").exists()
    note = "; an AGENTS.md exists already: read it and improve it rather than starting over" if existing else ""
    app.turns.submit(view.workstream, INIT_PROMPT.format(existing=note))


def save_note(app, view, text: str) -> None:
    """'# text': ask the type and scope, then save the text as a memory in this workstream's view."""
    from app.tui.screens.memory_note import MemoryNoteScreen

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


async def skill(app, view, args: str) -> None:
    """/skill [NAME var=value …]: start a new workstream from a skill (the picker without a name)."""
    import asyncio
    import shlex

    from app.memory.skills import SkillError, discover, parse_assignments
    from app.tui.screens.skill_picker import SkillPicker

    try:
        words = shlex.split(args)
        values = parse_assignments(words[1:])
    except (ValueError, SkillError) as error:
        raise CommandError(f"Usage: /skill NAME var=value … ({error})") from None
    config_dir = app.memory_service.config_dir if app.memory_service is not None else None
    skills, problems = await asyncio.to_thread(discover, view.workstream.session.tool_context.workspace, config_dir)
    if not words:
        def picked(name: str | None) -> None:
            if name:
                app.run_worker(_start_or_say(app, view, skills, name, {}), group="skill", exit_on_error=False)

        app.push_screen(SkillPicker(skills, problems, str(view.workstream.session.tool_context.workspace)),
                        callback=picked)
        return
    await start_skill(app, skills, words[0], values)


async def _start_or_say(app, view, skills, name, values) -> None:
    try:
        await start_skill(app, skills, name, values)
    except CommandError as error:
        await view.transcript.add_notice(str(error), "warning")


async def start_skill(app, skills: dict, name: str, values: dict[str, str]) -> None:
    """Open a new workstream whose system message carries the skill, apply its settings (each one
    that cannot apply is said) and record its version."""
    from app.engine.skill_settings import apply_skill_settings
    from app.memory.skills import SkillError

    chosen = skills.get(name)
    if chosen is None:
        raise CommandError(f"No skill called {name!r}. Known: {', '.join(skills) or 'none'} (/skill lists them).")
    try:
        prompt = chosen.render(values)
    except SkillError as error:
        raise CommandError(str(error)) from None
    await app.workspace.new_workstream()
    view = app.main_screen.view_for(app.focused_id)
    workstream = view.workstream
    session = workstream.session
    await session.memory_context.start_skill(session, {
        "name": chosen.name, "version": chosen.version, "path": str(chosen.path), "values": values,
        "settings": chosen.settings, "prompt": prompt})
    workstream.title = f"{chosen.name} (skill)"
    await app.store.update_workstream(workstream.id, title=workstream.title)
    settings, held = await _reviewed_settings(app, chosen)
    applied, refused = await apply_skill_settings(session, settings)
    refused += held
    line = f"Started from skill {chosen.name} (version {chosen.version})."
    if applied:
        line += " Applied: " + ", ".join(applied) + "."
    if refused:
        line += " Not applied: " + ", ".join(refused) + "."
    app.workspace.refresh_chrome()
    await view.transcript.add_notice(line)


async def _reviewed_settings(app, chosen) -> tuple[dict, list[str]]:
    """The skill's settings without a permission mode a project skill may not set yet (its file is not
    accepted as it is: app/permissions/project.py), and why that one is held back."""
    import asyncio

    from app.permissions.project import REVIEW_HOW, skill_mode_accepted

    if "permission_mode" not in chosen.settings:
        return chosen.settings, []
    engine = app.store.store.engine if app.store is not None else None
    config_dir = app.memory_service.config_dir if app.memory_service is not None else None
    user_skills = config_dir / "skills" if config_dir is not None else None
    if await asyncio.to_thread(skill_mode_accepted, engine, user_skills, chosen.path, chosen.version):
        return chosen.settings, []
    kept = {k: v for k, v in chosen.settings.items() if k != "permission_mode"}
    return kept, [f"permission_mode={chosen.settings['permission_mode']} (a project skill's mode applies once "
                  f"you accept its file: {REVIEW_HOW})"]


HANDLERS = {"memory": memory, "instructions": instructions, "init": init, "skill": skill}
