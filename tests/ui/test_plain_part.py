"""The plain-text part of a long reply (widgets/plain_part.py): wrapped as it grows, shown inert."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from widgets.plain_part import PlainPart, plain_classes

TEXT = ("Logs \x1b[2J\x1b]0;PWNED\x07 follow:\tcolumns\n" + "漢字 wide words " * 40 + "\n"
        + "word " * 300 + "x" * 150)


class PartApp(App):
    def __init__(self, part: PlainPart) -> None:
        super().__init__()
        self.part = part

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.part


def screen_lines(app: App) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def shown(part: PlainPart, size=(60, 200)) -> list[str]:
    app = PartApp(part)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return [line.rstrip() for line in screen_lines(app)][:part.outer_size.height]


async def test_control_characters_are_shown_never_sent() -> None:
    from widgets import terminal_guard

    terminal_guard.install()  # as the app does at start (idempotent)
    lines = await shown(PlainPart(TEXT))
    joined = "\n".join(lines)
    assert "␛[2J␛]0;PWNED␇" in joined and "\x1b" not in joined and "\x07" not in joined
    assert "follow:    columns" in joined  # a tab as spaces


async def test_lines_fit_the_width_and_keep_every_word() -> None:
    from rich.cells import cell_len

    from widgets import terminal_guard

    terminal_guard.install()

    lines = await shown(PlainPart(TEXT), size=(40, 200))
    assert all(cell_len(line) <= 40 for line in lines)
    def letters(text: str) -> str:
        return "".join(text.split())

    assert letters("".join(lines)) == letters(TEXT.replace("\x1b", "␛").replace("\x07", "␇"))  # a long word is cut


async def test_a_part_appended_to_looks_like_one_made_whole() -> None:
    """Appending re-wraps from the last line only; the result is the wrapping of the whole text."""
    grown = PlainPart(classes=plain_classes(noted=True))
    app = PartApp(grown)
    async with app.run_test(size=(50, 200)) as pilot:
        for start in range(0, len(TEXT), 37):
            await grown.append(TEXT[start:start + 37])
            await pilot.pause()
        appended = [line.rstrip() for line in screen_lines(app)][:grown.outer_size.height]
    whole = await shown(PlainPart(TEXT, classes=plain_classes(noted=True)), size=(50, 200))
    assert appended == whole and whole[0].strip().startswith("⋯ this block is longer than")
