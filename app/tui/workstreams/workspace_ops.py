"""Tab and pane operations of the app: restore, open, create, close, switch, split, and routing approvals.

The App holds one WorkspaceOps (the App passed in). The layout and the focused workstream stay the
App's (`layout_tree`, `focused_id`: nearly every feature reads them); these operations change them,
with the App's `manager`, `store` and `main_screen`.
"""

from __future__ import annotations

from functools import partial

from app.tui import checkpoint_wiring

from app.tui.workstreams import subagent_panes
from widgets.bridge import make_emitter
from app.engine.layout import LayoutError, LayoutTree
from widgets.workstream_view import WorkstreamView


def _limit_error():
    """The manager's limit error class (imported late: the engine stays off the startup path)."""
    from app.engine.workstreams import WorkstreamLimitError

    return WorkstreamLimitError


class WorkspaceOps:
    """The tabs and panes of one App: what opens, closes and has the focus, and the approvals shown."""

    def __init__(self, app) -> None:
        self.app = app

    # -- opening and closing -------------------------------------------------------------
    async def restore(self) -> None:
        """Reopen the tabs and panes of the last run, then the --resume target; else one new tab."""
        from app.engine.ownership import HeldElsewhere

        app = self.app
        saved_tabs = await app.store.get_app_state("tabs") or []
        for workstream_id in saved_tabs:
            try:
                await self.open_workstream(workstream_id, show=False, only_if_free=True)
            except (LookupError, HeldElsewhere):
                continue  # deleted or pruned since, or open in another window (which keeps it)
        known = {w.id for w in app.manager}
        saved_layout = await app.store.get_app_state("layout")
        tree = LayoutTree.from_dict(saved_layout, known) if saved_layout else None
        focused = await app.store.get_app_state("focused")
        if tree is not None:
            app.layout_tree = tree
            app.focused_id = focused if focused in tree else tree.leaves()[0]
        elif len(app.manager):
            first = app.manager.workstreams[0].id
            app.layout_tree, app.focused_id = LayoutTree.single(first), first
        problem = None
        if app.options.resume:
            try:
                await self.open_workstream(app.options.resume)
            except LookupError as error:
                problem = str(error)
        if not len(app.manager):
            await self.new_workstream()
        self.apply_layout()
        for text in await app.main_screen.hand_over_boot_prompt():
            app.main_screen.route(app.main_screen.view_for(app.focused_id), text)
        if problem:
            await app.main_screen.view_for(app.focused_id).transcript.add_notice(problem, "error")

    async def mount_view(self, workstream, evicted) -> WorkstreamView:
        """Mount a view for `workstream` (and drop the evicted one's view)."""
        screen = self.app.main_screen
        if evicted is not None:
            await self._drop_view(evicted)
            self.app.notify(f"Closed idle workstream “{evicted.name}” to stay within {self.app.manager.max_open} "
                            "open; it is saved (/resume).")
        checkpoint_wiring.apply_saved_worktree(self.app, workstream)  # one saved with its own worktree goes on there
        view = WorkstreamView(workstream)
        await screen.pane_area.mount(view)
        workstream.listener = make_emitter(view)
        view.prompt.completer = screen.complete_command
        if self.app.store is not None and workstream.id:
            view.prompt.past_prompts = await self.app.store.prompt_history(workstream.id)
        return view

    async def _drop_view(self, workstream) -> None:
        self.app.turns.cancel(workstream)
        for waiting in list(workstream.pending):  # MCP server requests: answered "cancel"/"denied"
            if hasattr(waiting, "make_screen"):
                waiting.future.cancel()
        view = self.app.main_screen.view_for(workstream.id)
        if view is not None:
            await view.remove()
        await subagent_panes.close_subagent_panes(self.app, workstream.id, relayout=False)  # they watched its sub-agents
        if self.app.layout_tree is not None and workstream.id in self.app.layout_tree:
            if len(self.app.layout_tree.workstream_leaves()) > 1:
                self.app.layout_tree.close(workstream.id)
            else:
                self.app.layout_tree = None
                await subagent_panes.drop_unplaced_panes(self.app)

    def protected(self) -> set[str]:
        return set(self.app.layout_tree.leaves()) if self.app.layout_tree else set()

    async def _create_tab(self):
        """A new workstream with its view (evicting at the limit); None, with a message, when full."""
        try:
            workstream, evicted = await self.app.manager.create(protect=self.protected())
        except _limit_error() as error:
            self.app.notify(str(error), severity="warning", timeout=8)
            return None
        await self.mount_view(workstream, evicted)
        return workstream

    async def new_workstream(self) -> None:
        """Create a workstream in a new tab and show it in the focused pane."""
        workstream = await self._create_tab()
        if workstream is not None:
            self.show_workstream(workstream)

    async def open_workstream(self, ref: str, *, show: bool = True, only_if_free: bool = False) -> None:
        """Open a saved workstream in a tab (LookupError when none matches).

        One open in another window is shown read-only, or with `only_if_free` not opened (HeldElsewhere).
        """
        try:
            workstream, evicted = await self.app.manager.open(ref, protect=self.protected(),
                                                              only_if_free=only_if_free)
        except _limit_error() as error:
            self.app.notify(str(error), severity="warning", timeout=8)
            return
        if self.app.main_screen.view_for(workstream.id) is None:
            await self.mount_view(workstream, evicted)
        if show:
            self.show_workstream(workstream)

    async def close_workstream(self, workstream) -> None:
        """Close a tab (the workstream stays saved); the last tab is replaced by a fresh one."""
        await self._drop_view(workstream)
        await self.app.manager.close(workstream)
        if not len(self.app.manager):
            await self.new_workstream()
            return
        if self.app.layout_tree is None:
            first = self.app.manager.workstreams[0]
            self.app.layout_tree = LayoutTree.single(first.id)
        if self.app.focused_id == workstream.id:
            self.app.focused_id = self.app.layout_tree.workstream_leaves()[0]
        self.apply_layout()

    # -- showing and focusing ------------------------------------------------------------
    def show_workstream(self, workstream) -> None:
        """Focus `workstream`: its pane if it has one, else it replaces the focused pane's."""
        if self.app.layout_tree is None:
            self.app.layout_tree = LayoutTree.single(workstream.id)
        elif workstream.id not in self.app.layout_tree:
            tree = self.app.layout_tree
            target = self.app.focused_id if self.app.focused_id in tree else tree.workstream_leaves()[0]
            self.app.layout_tree.show(target, workstream.id)
        self.app.focused_id = workstream.id
        self.apply_layout()

    def switch_to_index(self, index: int) -> None:
        if self.app.booted() and 0 <= index < len(self.app.manager):  # before boot the tabs are only names
            self.show_workstream(self.app.manager.workstreams[index])

    def cycle_tab(self, step: int) -> None:
        if not len(self.app.manager):
            return
        current = self.app.workstream
        index = self.app.manager.workstreams.index(current) if current in self.app.manager.workstreams else 0
        self.switch_to_index((index + step) % len(self.app.manager))

    def focus_next_pane(self) -> None:
        if self.app.layout_tree is not None:
            self.app.focused_id = self.app.layout_tree.next_to(self.app.focused_id)
            self.apply_layout()

    def apply_layout(self) -> None:
        """Place views, focus the focused one's prompt, refresh tabs and open a waiting approval."""
        if self.app.layout_tree is None:
            return
        screen = self.app.main_screen
        screen.pane_area.apply(self.app.layout_tree, self.app.focused_id)
        for workstream_id in self.app.layout_tree.leaves():  # stored history renders when first shown
            shown = screen.view_for(workstream_id)
            if shown is not None and not shown.history_shown:
                shown.history_shown = True
                self.app.run_worker(shown.transcript.show_history(shown.workstream.session.messages),
                                    group=f"history-{workstream_id}", exit_on_error=False)
        view = screen.view_for(self.app.focused_id)
        if view is not None:
            self.app.workstream.unread = False
            if self.app.screen is screen:  # focus moves now (not a tick later), so the next key lands here
                screen.set_focus(view.focus_target)
        self.refresh_chrome()
        self.persist_workspace()
        self.open_waiting_approval()

    def view_focused(self, view: WorkstreamView) -> None:
        """The user clicked or tabbed into a pane: it becomes the focused workstream."""
        if view.workstream.id != self.app.focused_id:
            self.app.focused_id = view.workstream.id
            self.app.main_screen.pane_area.apply(self.app.layout_tree, self.app.focused_id)
            view.workstream.unread = False
            self.refresh_chrome()
            self.persist_workspace()
            self.open_waiting_approval()

    # -- splitting -----------------------------------------------------------------------
    async def split(self, direction: str) -> None:
        """Split the focused pane; the new half shows an open workstream not yet shown, or a new one."""
        if self.app.layout_tree is None:
            return
        if len(self.app.layout_tree.leaves()) >= 6:
            self.app.notify("At most 6 panes; close one first (F8).", severity="warning")
            return
        spare = next((w for w in self.app.manager if w.id not in self.app.layout_tree), None)
        if spare is None:
            spare = await self._create_tab()
            if spare is None:
                return
        try:
            self.app.layout_tree.split(self.app.focused_id, spare.id, direction)  # type: ignore[arg-type]
        except LayoutError as error:
            self.app.notify(str(error), severity="warning")
            return
        self.app.focused_id = spare.id
        self.apply_layout()

    async def close_pane(self) -> None:
        """F8: the sub-agent pane that has the keyboard, else the focused workstream's pane."""
        if await subagent_panes.close_focused_subagent_pane(self.app):
            return
        if self.app.layout_tree is None or len(self.app.layout_tree.workstream_leaves()) == 1:
            more = (" (a sub-agent's pane closes with F8 inside it, or /subagent close)"
                    if self.app.layout_tree is not None and len(self.app.layout_tree.leaves()) > 1 else "")
            self.app.notify(f"This is the only pane{more}.", severity="warning")
            return
        closing = self.app.focused_id
        self.app.focused_id = self.app.layout_tree.next_to(closing)
        self.app.layout_tree.close(closing)
        self.apply_layout()

    # -- chrome, persistence, approvals --------------------------------------------------
    def refresh_chrome(self) -> None:
        """Tabs, pane titles and the status bar show the current facts."""
        if self.app.manager is None:
            return
        self.app.main_screen.refresh_chrome(list(self.app.manager), self.app.workstream)
        self.app.ownership.follow_read_only()  # its poll runs only while a pane is read-only

    def persist_workspace(self) -> None:
        if self.app.store is None or self.app.layout_tree is None:
            return
        save = partial(self._save_workspace, [w.id for w in self.app.manager], self.app.layout_tree.to_dict(),
                       self.app.focused_id)
        self.app.run_worker(save, group="persist-layout", exclusive=True, exit_on_error=False)

    async def _save_workspace(self, tabs: list[str], layout: dict, focused: str) -> None:
        await self.app.store.set_app_state("tabs", tabs)
        await self.app.store.set_app_state("layout", layout)
        await self.app.store.set_app_state("focused", focused)

    def approval_arrived(self, view: WorkstreamView) -> None:
        workstream = view.workstream
        if workstream.id != self.app.focused_id:
            self.app.attention.alert("Whimbrel", f"“{workstream.name}” needs your approval")
        self.refresh_chrome()
        self.open_waiting_approval()

    def open_waiting_approval(self) -> None:
        """Show the focused workstream's oldest pending approval, unless a dialog is already up.

        Requests from MCP servers wait in the same list (app/tui/mcp/mcp_client_ui.py): they build their own modal.
        """
        workstream = self.app.workstream
        if workstream is None or not workstream.pending or self.app.screen is not self.app.main_screen:
            return
        from app.tui.screens.approval import ApprovalScreen  # first needed at the first approval

        request = workstream.pending[0]
        make_screen = getattr(request, "make_screen", None)
        screen = make_screen(workstream.name) if make_screen else ApprovalScreen(
            request.items, workstream.name, self.app.permissions.places(),
            judge=self.app.permissions.approval_judge())

        def resolve(decisions) -> None:
            if not request.future.done():
                request.future.set_result(decisions if make_screen else decisions or {})
            self.refresh_chrome()
            self.app.call_after_refresh(self.open_waiting_approval)

        def close_if_cancelled(future) -> None:
            stack = self.app.screen_stack
            if future.cancelled() and screen.is_attached and stack and stack[-1] is screen:
                screen.dismiss(None)

        request.future.add_done_callback(close_if_cancelled)
        self.app.push_screen(screen, callback=resolve)

    def next_attention(self) -> None:
        target = self.app.manager.next_needing_attention(self.app.workstream) if self.app.manager else None
        if target is None:
            self.app.notify("No workstream is waiting for you.")
        else:
            self.show_workstream(target)

    async def forget_workstream(self, workstream_id: str) -> None:
        """Delete a workstream and its history; its tab closes if it is open. Never one that is
        open in another window (that window would go on writing into nothing)."""
        lease = await self.app.store.lease(workstream_id)
        if lease is not None and not self.app.manager.ownership.free_now(lease):
            from app.engine.ownership import where

            self.app.notify(f"Not deleted: it is {where(lease)}. Close it there first.", severity="warning",
                            timeout=8)
            return
        workstream = self.app.manager.get(workstream_id)
        if workstream is not None:
            await self.close_workstream(workstream)
        await self.app.store.delete_workstream(workstream_id)
