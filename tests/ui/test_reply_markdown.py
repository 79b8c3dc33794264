"""A reply's Markdown (widgets/reply_markdown.py) looks exactly like Textual's own, in every theme,
while each streamed update costs one layout of the screen."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from widgets.no_relayout import virtual_size_without_relayout
from widgets.reply_markdown import ReplyMarkdown

REPLY = """Intro with *emphasis*, **strong**, ~~struck~~ and `inline code`.

- a list item with `code` and **bold**

| head | *em* |
|------|------|
| `x`  | **y** |

> quoted `code`
"""


class Scroll(VerticalScroll):
    """Scrolls like the transcript, which keeps its own size without a second layout."""

    virtual_size = virtual_size_without_relayout()


class Shown(App):
    def __init__(self, widget_class: type[Markdown]) -> None:
        super().__init__()
        self.widget_class = widget_class

    def compose(self) -> ComposeResult:
        with Scroll():
            yield self.widget_class(REPLY)


def painted(app: App) -> list[tuple[str, str]]:
    """Each line on the terminal: its text and the styles of its segments."""
    return [(strip.text, "|".join(str(seg.style) for seg in strip))
            for strip in app.screen._compositor.render_strips()]


async def test_inline_styles_match_textual_markdown_in_each_theme() -> None:
    ours, theirs = Shown(ReplyMarkdown), Shown(Markdown)
    async with ours.run_test(size=(70, 20)) as ours_pilot, theirs.run_test(size=(70, 20)) as their_pilot:
        for theme in ("textual-dark", "textual-light", "nord"):
            ours.theme = theirs.theme = theme
            await ours_pilot.pause()
            await their_pilot.pause()
            shown = painted(ours)
            assert shown == painted(theirs), theme
            assert any("bold" in styles for _, styles in shown)  # the comparison covers inline styles


def paragraphs(update: int) -> str:
    return "".join(f"Paragraph {update}.{n} of the update.\n\n" for n in range(6))


async def test_a_streamed_update_costs_one_layout() -> None:
    app = Shown(ReplyMarkdown)
    async with app.run_test(size=(70, 30)) as pilot:
        markdown = app.query_one(ReplyMarkdown)
        await markdown.append(paragraphs(0) * 3)  # taller than the view: its scrollbar is there
        await pilot.pause()
        layouts = 0
        refresh_layout = app.screen._refresh_layout

        def counted(*args, **kwargs):
            nonlocal layouts
            layouts += 1
            return refresh_layout(*args, **kwargs)

        app.screen._refresh_layout = counted
        for update in range(1, 6):
            await markdown.append(paragraphs(update))
            await pilot.pause()
            await pilot.pause()
        assert layouts == 5  # Textual's own Markdown needs two per update
        app.query_one(Scroll).scroll_end(animate=False)
        await pilot.pause()
        assert any("Paragraph 5.5 of the update." in text for text, _ in painted(app))
