"""The Markdown widget of an assistant reply, laid out once per update instead of twice.

After a layout pass Textual stores each widget's new virtual size through a reactive declared with
`layout=True`, so every widget that grew in that pass asks for a second full layout of the screen,
which changes nothing: the pass that computed the sizes already placed everything. A streamed reply
grows on every update, so each update cost two layouts of the whole screen. The reply's Markdown, its
blocks, the message and the transcript declare the virtual size without `layout` (see `settled`).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Markdown


def virtual_size_without_relayout() -> Reactive[Size]:
    """A `virtual_size` for a widget whose size only ever comes from a layout pass."""
    return Reactive(Size(0, 0), layout=False)


def settled(widget_class: type[Widget]) -> type[Widget]:
    """`widget_class` under the same name (so CSS and queries still match) without the relayout."""
    return type(widget_class.__name__, (widget_class,),
                {"virtual_size": virtual_size_without_relayout(), "__module__": __name__,
                 "__doc__": widget_class.__doc__})


class ReplyMarkdown(Markdown):
    """Markdown for a reply: Textual's own, with blocks that do not ask for a second layout."""

    virtual_size = virtual_size_without_relayout()
    BLOCKS = {name: settled(block) for name, block in Markdown.BLOCKS.items()}
