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

from textual.message import Message
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


def shared_parser():
    """The one markdown-it parser of every reply's Markdown (made on first use).

    Textual's Markdown makes a parser for each append unless given a factory: "gfm-like" compiles
    linkify's patterns each time (~40 KB of objects in reference cycles, garbage that waits for a
    full collection: several MB over a long reply streamed in thousands of appends). A parser keeps
    no state between `parse` calls (each builds its own StateCore), and the UI parses on one thread.
    """
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("gfm-like")
    return _parser


_parser = None


class ReplyMarkdown(Markdown):
    """Markdown for a reply: Textual's own, with blocks that do not ask for extra layouts, one
    parser for all of them (`shared_parser`), and no table of contents messages (`post_message`)."""

    virtual_size = virtual_size_without_relayout()
    BLOCKS = {name: settled(block) for name, block in Markdown.BLOCKS.items()}

    def __init__(self, markdown: str | None = None, **kwargs) -> None:
        kwargs.setdefault("parser_factory", shared_parser)
        super().__init__(markdown, **kwargs)

    def post_message(self, message: Message) -> bool:
        """Everything but Textual's TableOfContentsUpdated, which nothing in the app reads.

        Each part posts one when it is first rendered, and it bubbles up to the workstream's view,
        whose queue waits while the view renders a long reply (`HeldOutput.release` paints slice after
        slice from one handler): each message held its part, with all its blocks, long after the part
        had gone dormant. A 10 MB reply of paragraphs kept ~1,300 removed widgets that way, ~80 MB more
        at its peak, and the memory freed afterwards stayed scattered (~100 MB over the reply, settled).
        """
        if isinstance(message, Markdown.TableOfContentsUpdated):
            return False
        return super().post_message(message)
