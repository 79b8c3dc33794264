"""The Markdown widget of an assistant reply, laid out once per update instead of two or three times.

Textual's own Markdown, with blocks that
- keep their virtual size without asking for a second layout (widgets/no_relayout.py);
- do not ask for a layout of their own before they are mounted. Textual builds each new block's
  content before mounting it, and setting content asks for a layout; the widget sends that request
  once it is mounted and idle, which is after the layout that the mount itself caused has already
  placed it. Every streamed update thus cost a second, leftover layout of the whole screen;
- work out the styles of their inline components (`.code_inline`, `.em`, `.strong`, `.s`) when a
  render first needs them, not on mount. Textual applies the stylesheet once more per component
  class to every new block, most of the cost of mounting one, and a paragraph of plain prose
  never uses them.
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Markdown

from widgets.no_relayout import virtual_size_without_relayout
from widgets.textual_internals import component_styles_on_first_use


def settled(widget_class: type[Widget]) -> type[Widget]:
    """`widget_class` under the same name (so CSS and queries still match) without the extra layouts."""

    def refresh(self: Widget, *regions, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Widget:
        """Without the layout request of a block not mounted yet: its mount lays it out."""
        return widget_class.refresh(self, *regions, repaint=repaint, layout=layout and self.is_mounted,
                                    recompose=recompose)

    return type(widget_class.__name__, (widget_class,),
                {"virtual_size": virtual_size_without_relayout(), "refresh": refresh,
                 **component_styles_on_first_use(widget_class),  # not on mount: see above
                 "__module__": __name__, "__doc__": widget_class.__doc__})


class ReplyMarkdown(Markdown):
    """Markdown for a reply: Textual's own, with blocks that do not ask for extra layouts."""

    virtual_size = virtual_size_without_relayout()
    BLOCKS = {name: settled(block) for name, block in Markdown.BLOCKS.items()}
