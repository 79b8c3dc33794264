"""The Markdown widget of an assistant reply, laid out once per update instead of twice.

Textual's own Markdown, whose blocks keep their virtual size without asking for a second layout
(widgets/no_relayout.py).
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Markdown

from widgets.no_relayout import virtual_size_without_relayout


def settled(widget_class: type[Widget]) -> type[Widget]:
    """`widget_class` under the same name (so CSS and queries still match) without the relayout."""
    return type(widget_class.__name__, (widget_class,),
                {"virtual_size": virtual_size_without_relayout(), "__module__": __name__,
                 "__doc__": widget_class.__doc__})


class ReplyMarkdown(Markdown):
    """Markdown for a reply: Textual's own, with blocks that do not ask for a second layout."""

    virtual_size = virtual_size_without_relayout()
    BLOCKS = {name: settled(block) for name, block in Markdown.BLOCKS.items()}
