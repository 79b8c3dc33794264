"""The area that shows workstream views in split panes, positioned from a LayoutTree.

Every open workstream's view stays mounted (hidden when not in a pane), so switching tabs or
re-splitting never rebuilds a transcript: views are only moved and resized. A pane may also
watch a sub-agent (widgets/subagent_pane.py), placed the same way by its leaf.
"""

from __future__ import annotations

from textual.containers import Container

from app.engine.layout import LayoutTree
from widgets.subagent_pane import SubagentPane
from widgets.workstream_view import WorkstreamView


def _place(widget, region: tuple[int, int, int, int] | None) -> None:
    widget.display = region is not None
    if region is not None:
        x, y, w, h = region
        widget.styles.offset = (x, y)
        widget.styles.width = w
        widget.styles.height = h


class PaneArea(Container):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.layout_tree: LayoutTree | None = None
        self.focused = ""

    def views(self) -> list[WorkstreamView]:
        return list(self.query_children(WorkstreamView))

    def subagent_panes(self) -> list[SubagentPane]:
        return list(self.query_children(SubagentPane))

    def view_for(self, workstream_id: str) -> WorkstreamView | None:
        return next((v for v in self.views() if v.workstream.id == workstream_id), None)

    def apply(self, tree: LayoutTree, focused: str = "") -> None:
        """Show the views named by `tree` in their regions, mark the focused one; hide the rest."""
        self.layout_tree = tree
        self.focused = focused
        width, height = self.size
        regions = tree.regions(width, height) if width and height else {}
        split = len(regions) > 1
        self.set_class(split, "-split")
        for view in self.views():
            region = regions.get(view.workstream.id)
            _place(view, region)
            view.set_shown(region is not None)
            view.set_class(view.workstream.id == focused, "-focused")
        for pane in self.subagent_panes():
            _place(pane, regions.get(pane.leaf))

    def on_resize(self) -> None:
        if self.layout_tree is not None:
            self.apply(self.layout_tree, self.focused)
