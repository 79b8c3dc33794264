"""A widget's virtual size stored without asking Textual for a second, no-op layout.

After a layout pass Textual stores each widget's new virtual size through a reactive declared with
`layout=True`, so every widget that grew in that pass asks for a second full layout of the screen,
which changes nothing: the pass that computed the sizes already placed everything. A streamed reply
grows on every update, so each update cost two layouts of the whole screen. The reply's Markdown and
its blocks (widgets/reply_markdown.py), the message and the transcript declare it with this instead.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def virtual_size_without_relayout() -> Reactive[Size]:
    """A `virtual_size` for a widget whose size only ever comes from a layout pass."""
    return Reactive(Size(0, 0), layout=False)
