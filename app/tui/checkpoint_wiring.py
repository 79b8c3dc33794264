"""App glue for checkpoints: give each session its turn checkpoints, finish interrupted rewinds at
start, apply retention, and build the rewinder the /rewind screen uses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


def repo_for(app: Any, workspace: Path | str):
    """The shadow repository of `workspace`, with the configured ignore list and size limit."""
    from app.checkpoints.shadow import ShadowRepo

    config = app.options.config
    ignore = getattr(config, "checkpoint_ignore", ()) if config is not None else ()
    limit_mb = getattr(config, "checkpoint_max_file_mb", 10.0) if config is not None else 10.0
    return ShadowRepo(app.options.data_dir, Path(workspace), ignore=ignore, max_file_size=int(limit_mb * 1024 * 1024))


def enabled(app: Any) -> bool:
    config = app.options.config
    return app.store is not None and (config is None or getattr(config, "checkpoints_enabled", True))


def attach(app: Any, session: Any) -> None:
    """Snapshot the workspace around each of `session`'s turns."""
    if enabled(app):
        from app.checkpoints.turns import TurnCheckpoints

        session.checkpoints = TurnCheckpoints(app.store, repo_for(app, session.tool_context.workspace),
                                              session.workstream_id)


def rewinder(app: Any, workstream: Any):
    """The rewinder of `workstream` (its session's workspace)."""
    from app.checkpoints.rewind import Rewinder

    session = workstream.session
    return Rewinder(app.store, repo_for(app, session.tool_context.workspace), session.workstream_id)


async def at_start(app: Any) -> list[str]:
    """Finish rewinds a killed process left half done (returns what to tell the user), then drop
    checkpoints past the retention period; and read which workstreams work in worktrees."""
    await load_worktrees(app)
    if not enabled(app):
        return []
    from app.checkpoints import records
    from app.checkpoints.rewind import recover

    store = app.store
    said = await store.run(recover, store.store, lambda workspace: repo_for(app, workspace))
    expired = await store.run(records.expired_checkpoints, store.store, app.options.retention_days)
    if expired:
        await store.run(records.delete_checkpoints, store.store, [i for i, _w in expired])
        for workspace in {w for _i, w in expired}:
            repo = repo_for(app, workspace)
            names = [f"turn/{i}/{side}" for i, w in expired if w == workspace for side in ("before", "after")]
            await asyncio.to_thread(_forget_and_prune, repo, names)
    return said


def _forget_and_prune(repo: Any, names: list[str]) -> None:
    try:
        repo.forget(names)
        repo.prune()
    except Exception:  # noqa: BLE001 — retention is housekeeping: a failure leaves objects, never loses any
        pass


# -- /rewind -------------------------------------------------------------------------------
async def rewind_command(app: Any, view: Any, args: str) -> None:
    """`/rewind` opens the rewind screen; `/rewind undo` takes the last rewind back."""
    from app.engine.commands import CommandError

    workstream = view.workstream
    if workstream.busy:
        raise CommandError("A turn is running; press Esc to cancel it first.")
    if not enabled(app):
        raise CommandError("Checkpoints are off ([checkpoints] enabled = false), so only /rewind N works.")
    if args.strip() == "undo":
        from app.checkpoints.rewind import RewindError
        from app.tui.screens.rewind import undo_sentence

        try:
            outcome = await rewinder(app, workstream).undo()
        except RewindError as error:
            raise CommandError(str(error)) from None
        await show_rewound(view, undo_sentence(outcome))
        return
    open_rewind(app, view)


def open_rewind(app: Any, view: Any) -> None:
    """Push the rewind screen for `view`'s workstream; the transcript shows the result."""
    from app.tui.screens.rewind import ForkHere, RewindScreen

    def done(result: Any) -> None:
        if isinstance(result, ForkHere):
            app.run_worker(_fork_or_say(app, view, result.keep), group="fork", exit_on_error=False)
        elif result:
            app.run_worker(show_rewound(view, result), group="rewind", exit_on_error=False)

    app.push_screen(RewindScreen(rewinder(app, view.workstream), view.workstream.name), callback=done)


async def show_rewound(view: Any, sentence: str) -> None:
    """Reload the conversation after a rewind and redraw the transcript with the result."""
    session = view.workstream.session
    await session.reload_conversation()
    await view.transcript.clear_all()
    await view.transcript.show_history(session.messages)
    await view.transcript.add_notice(sentence)


async def _fork_or_say(app: Any, view: Any, keep: int) -> None:
    from app.engine.commands import CommandError

    try:
        await fork_into(app, view, keep)
    except CommandError as error:
        await view.transcript.add_notice(str(error), "warning")


class DoubleEscape:
    """Esc twice (within `window` seconds) on an empty prompt of an idle workstream opens /rewind."""

    def __init__(self, window: float = 0.8) -> None:
        self.window = window
        self._last = 0.0

    def pressed(self, app: Any, view: Any) -> bool:
        """Call on each Esc; True when this one opened the rewind screen."""
        import time

        now = time.monotonic()
        eligible = view is not None and not view.workstream.busy and not view.prompt.text.strip() \
            and not view.workstream.read_only and enabled(app)
        if not eligible:
            self._last = 0.0
            return False
        if now - self._last <= self.window:
            self._last = 0.0
            open_rewind(app, view)
            return True
        self._last = now
        return False


# -- /fork ---------------------------------------------------------------------------------
async def fork_command(app: Any, view: Any, args: str) -> None:
    """`/fork [N] [split] [files]`: a new workstream with the first N turns (all by default), in a new
    tab or (split) beside this pane; `files` also puts the workspace back to that point."""
    from app.engine.commands import CommandError

    words = args.split()
    numbers = [w for w in words if w.isdigit()]
    unknown = [w for w in words if not w.isdigit() and w not in ("split", "files", "tab")]
    if unknown or len(numbers) > 1:
        raise CommandError("Usage: /fork [N] [split] [files] — fork after the Nth message (default: the last), "
                           "in a new tab or a split pane, optionally with the files as they were then")
    await fork_into(app, view, int(numbers[0]) if numbers else None, split="split" in words, files="files" in words)


async def fork_into(app: Any, view: Any, keep: int | None, *, split: bool = False, files: bool = False) -> None:
    """Fork `view`'s workstream after its `keep`-th user message and show the fork."""
    from app.checkpoints.fork import fork
    from app.checkpoints.rewind import RewindError
    from app.engine.commands import CommandError

    workstream = view.workstream
    if workstream.busy:
        raise CommandError("A turn is running; press Esc to cancel it first.")
    if files and not enabled(app):
        raise CommandError("Checkpoints are off ([checkpoints] enabled = false): a fork cannot take the files.")
    try:
        result = await fork(app.store, rewinder(app, workstream), parent_title=workstream.name,
                            workdir=workstream.workdir, model=workstream.model or None, keep=keep, files=files)
    except RewindError as error:
        raise CommandError(str(error)) from None
    await app.workspace.open_workstream(result.child_id, show=not split)
    if split and app.layout_tree is not None:
        app.layout_tree.split(app.focused_id, result.child_id, "horizontal")
        app.focused_id = result.child_id
        app.workspace.apply_layout()
    child_view = app.main_screen.view_for(result.child_id)
    files_said = (f" Files restored to that point: {len(result.restored.written)} written, "
                  f"{len(result.restored.removed)} removed (/rewind undo in the fork takes it back)."
                  if result.restored is not None else "")
    if child_view is not None:
        await child_view.transcript.add_notice(
            f"Forked from “{workstream.name}” after message {result.turns}.{files_said}")
    await view.transcript.add_notice(f"Forked after message {result.turns} into a new workstream.")


# -- /worktree -----------------------------------------------------------------------------
def _worktrees(app: Any) -> dict[str, dict[str, str]]:
    """The app's record of which workstream works in which worktree (loaded at start)."""
    if not hasattr(app, "checkpoint_worktrees"):
        app.checkpoint_worktrees = {}
    return app.checkpoint_worktrees


def work_in(app: Any, workstream: Any, tree: Any) -> None:
    """Point `workstream`'s tools (and checkpoints) at `tree` (a Worktree), or back at the main tree (None)."""
    session = workstream.session
    workspace = Path(tree.path if tree is not None else app.options.workdir).resolve()
    session.tool_context.workspace = workspace
    session.tool_context.read_paths.clear()  # files must be read again where they now are
    session.guard = session.guard.in_workspace(workspace)  # rules judge, and the sandbox binds, that tree
    workstream.worktree = tree
    attach(app, session)
    app.workspace.refresh_chrome()


def apply_saved_worktree(app: Any, workstream: Any) -> None:
    """A workstream opened from the store goes on in the worktree it had (if it still exists)."""
    from app.checkpoints.worktree import Worktree

    saved = _worktrees(app).get(workstream.id)
    if saved and Path(saved["path"]).is_dir():
        work_in(app, workstream, Worktree(**saved))
    elif saved:  # its folder is gone: it works in the main tree now, and the user must know before approving
        app.notify(f"“{workstream.name}” worked in the worktree {saved['path']}, which is gone: it now works in "
                   f"the main tree {app.options.workdir}.", severity="error", timeout=12)


async def load_worktrees(app: Any) -> None:
    """At start: read which workstreams have worktrees (before their sessions are built)."""
    from app.checkpoints import records

    if app.store is not None:
        app.checkpoint_worktrees = await app.store.run(records.worktrees, app.store.store)
    app.checkpoint_worktree_possible = await asyncio.to_thread(_in_repository, Path(app.options.workdir))


def _in_repository(workspace: Path) -> bool:
    from app.checkpoints.worktree import WorktreeError, repository_root

    try:
        repository_root(workspace)
    except (WorktreeError, OSError):
        return False
    return True


def worktree_possible(app: Any) -> bool:
    """Whether the workspace is a git repository with a commit (read once at start), so Ctrl+N offers a worktree."""
    return bool(getattr(app, "checkpoint_worktree_possible", False))


async def new_workstream_in_worktree(app: Any) -> None:
    """Ctrl+N with the worktree flag: a new tab whose workstream works in its own worktree at once."""
    from app.engine.commands import CommandError

    await app.workspace.new_workstream()
    view = app.main_screen.view_for(app.focused_id)
    if view is None:
        return
    try:
        await worktree_command(app, view, "")
    except CommandError as error:
        await view.transcript.add_notice(f"No worktree for this workstream: {error}")


async def worktree_command(app: Any, view: Any, args: str) -> None:
    """`/worktree`: give this workstream its own git worktree, or (when it has one) show its diff
    with merge / keep / discard; `/worktree merge|keep|discard` does that directly."""
    from app.checkpoints import records
    from app.checkpoints import worktree as wt
    from app.engine.commands import CommandError

    workstream = view.workstream
    if workstream.busy:
        raise CommandError("A turn is running; press Esc to cancel it first.")
    word = args.strip()
    if word not in ("", "merge", "keep", "discard"):
        raise CommandError("Usage: /worktree [merge | keep | discard] — alone it creates this workstream's "
                           "worktree, or shows its diff when it has one")
    tree = getattr(workstream, "worktree", None)
    if tree is None:
        if word:
            raise CommandError("This workstream has no worktree; /worktree creates one.")
        try:
            tree = await asyncio.to_thread(wt.create, app.options.data_dir, Path(app.options.workdir),
                                           workstream.id[:12])
        except wt.WorktreeError as error:
            said = f"No worktree: {error} This workstream still works in the main tree {app.options.workdir}."
            app.notify(said, severity="error", timeout=12)  # loud: approved writes land in the real workspace
            raise CommandError(said) from None
        await app.store.set_config(workstream.id, records.WORKTREE_KEY, tree.as_dict())
        _worktrees(app)[workstream.id] = tree.as_dict()
        work_in(app, workstream, tree)
        await view.transcript.add_notice(f"This workstream now works in its own worktree {tree.path} (branch "
                                         f"{tree.branch}, from {tree.base[:10]}); other workstreams do not see "
                                         "its changes until you merge them (/worktree).")
        return
    from app.tui.screens.worktree import WorktreeScreen

    screen = WorktreeScreen(tree, workstream.name, then=word)

    def done(sentence: str | None) -> None:
        if sentence:
            app.run_worker(_back_to_main(app, view, sentence), group="worktree", exit_on_error=False)

    app.push_screen(screen, callback=done)


async def start_in_worktree(app: Any) -> list[str]:
    """--worktree: the focused workstream gets its own worktree at start (problems returned, to show)."""
    from app.engine.commands import CommandError

    view = app.main_screen.view_for(app.focused_id)
    if view is None or getattr(view.workstream, "worktree", None) is not None:
        return []
    try:
        await worktree_command(app, view, "")
    except CommandError as error:
        return [f"--worktree: {error}"]
    return []


async def _back_to_main(app: Any, view: Any, sentence: str) -> None:
    from app.checkpoints import records

    workstream = view.workstream
    await app.store.set_config(workstream.id, records.WORKTREE_KEY, None)
    _worktrees(app).pop(workstream.id, None)
    work_in(app, workstream, None)
    await view.transcript.add_notice(sentence)
