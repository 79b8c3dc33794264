"""The worktree screen: a workstream's changes in its own worktree against the main tree, then merge
(m), keep the branch (k) or discard (d). A merge that conflicts shows the conflicts and writes nothing."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from app.checkpoints import worktree as wt
from widgets.key_hints import key_hint
from styles import STYLES_DIR
from widgets.diff_view import DiffView, render_diff


class WorktreeScreen(ModalScreen[str | None]):
    """Dismisses with a sentence once the worktree is merged, kept or discarded; None on Esc."""

    CSS_PATH = STYLES_DIR / "checkpoints.tcss"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close", id="worktree.close"),
        Binding("m", "merge", "Merge", id="worktree.merge"),
        Binding("k", "keep", "Keep branch", id="worktree.keep_branch"),
        Binding("d", "discard", "Discard", id="worktree.discard"),
    ]

    def __init__(self, tree: wt.Worktree, title: str, then: str = "") -> None:
        """`then` ('merge', 'keep' or 'discard') is done at once, as `/worktree merge` asks."""
        super().__init__()
        self.then = then
        self.worktree = tree
        self.workstream_title = title
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="worktree-dialog"):
            yield Static(Text.assemble(("Worktree of ", "bold"), (f"“{self.workstream_title}”", "bold"),
                                       f"  branch {self.worktree.branch} · {key_hint(self, 'worktree.merge')} merge "
                                       f"into the main tree · {key_hint(self, 'worktree.keep_branch')} keep the branch · "
                                       f"{key_hint(self, 'worktree.discard')} discard · "
                                       f"{key_hint(self, 'worktree.close')} closes"), id="worktree-heading")
            with VerticalScroll(id="worktree-body"):
                yield DiffView("", id="worktree-diff")
            yield Static("Reading the changes…", id="worktree-status")

    def on_mount(self) -> None:
        self.load()
        if self.then:
            getattr(self, f"action_{self.then}")()

    def _status(self, text: str | Text) -> None:
        self.query_one("#worktree-status", Static).update(Text(text) if isinstance(text, str) else text)

    @work(exclusive=True, group="worktree")
    async def load(self) -> None:
        try:
            patch = await asyncio.to_thread(wt.diff, self.worktree)
        except wt.WorktreeError as error:
            self._status(str(error))
            return
        self.query_one("#worktree-diff", DiffView).update(render_diff(patch) if patch else Text(
            "No changes in this worktree yet.", style="dim"))
        self._status(f"Changes against {self.worktree.base[:10]} (where the worktree started), "
                     f"to go into {self.worktree.main}")

    def action_merge(self) -> None:
        if not self.busy:
            self.busy = True
            self.merge()

    @work(exclusive=True, group="worktree")
    async def merge(self) -> None:
        try:
            result = await asyncio.to_thread(wt.merge, self.worktree)
        except wt.WorktreeError as error:
            self.busy = False
            self._stayed(error)
            return
        if result.clean:
            try:
                await asyncio.to_thread(wt.discard, self.worktree)
            except wt.WorktreeError as error:  # merged all the same: the main tree has the changes now
                self.app.notify(f"The worktree {self.worktree.path} could not be removed: {error}",
                                severity="warning", timeout=10)
            self.dismiss(f"Merged the worktree into {self.worktree.main}: {len(result.merged)} file(s) "
                         f"({', '.join(result.merged) or 'no changes'}). The workstream works there again.")
            return
        self.busy = False
        shown = Text()
        for path, marked in result.conflicts.items():
            shown.append(f"Conflict in {path}:\n", style="bold red")
            shown.append_text(render_diff(marked))
            shown.append("\n")
        self.query_one("#worktree-diff", DiffView).update(shown)
        self._status(Text(f"{len(result.conflicts)} file(s) conflict with the main tree: nothing was written. "
                          "Resolve them (in the worktree or the main tree) and merge again, or keep the branch.",
                          style="bold yellow"))

    def action_keep(self) -> None:
        if not self.busy:
            self.busy = True
            self.finish("keep")

    def action_discard(self) -> None:
        if not self.busy:
            self.busy = True
            self.finish("discard")

    @work(exclusive=True, group="worktree")
    async def finish(self, how: str) -> None:
        try:
            if how == "keep":
                branch = await asyncio.to_thread(wt.keep, self.worktree, f"Whimbrel: {self.workstream_title}")
                said = f"Kept the worktree's changes on branch {branch}; the workstream works in {self.worktree.main} again."
            else:
                await asyncio.to_thread(wt.discard, self.worktree)
                said = f"Discarded the worktree and branch {self.worktree.branch}; the workstream works in {self.worktree.main} again."
        except wt.WorktreeError as error:
            self.busy = False
            self._stayed(error)
            return
        self.dismiss(said)

    def _stayed(self, error: Exception) -> None:
        """A merge, keep or discard failed: say why, and where the workstream works now (still the worktree)."""
        self._status(Text(f"{error}. The workstream still works in the worktree "
                          f"{self.worktree.path} (branch {self.worktree.branch}).", style="bold red"))
