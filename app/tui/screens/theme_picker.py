"""The theme picker: moving through the list previews each theme live; Enter keeps it (written to
config.toml), Esc puts the previous theme back.

    app.push_screen(ThemePickerScreen(names), callback)   # callback gets the kept name or None
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint


class ThemePickerScreen(ModalScreen["str | None"]):
    """A list of themes; the highlighted one is applied at once so the whole app shows it."""

    DEFAULT_CSS = """
    ThemePickerScreen { align: center middle; background: $background 40%; }
    #theme-dialog { width: 50; height: auto; max-height: 90%; border: thick $primary;
                    background: $surface; padding: 1 2; }
    #theme-dialog .heading { text-style: bold; padding: 0 0 1 0; }
    #theme-dialog .hint { color: $text-muted; padding: 1 0 0 0; }
    #theme-list { height: auto; max-height: 18; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="theme_picker.cancel"), Binding("enter", "keep", "Keep", show=True, id="theme_picker.keep")]

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names
        self.original = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="theme-dialog"):
            yield Static("Theme", classes="heading")
            yield OptionList(*(Option(self._label(name), id=name) for name in self.names), id="theme-list")
            yield Static(f"↑↓ preview   {key_hint(self, 'theme_picker.keep')} keeps (saved to config.toml)   "
                             f"{key_hint(self, 'theme_picker.cancel')} cancels", classes="hint")

    def _label(self, name: str) -> Text:
        dark = self.app.available_themes[name].dark
        text = Text(f"{name:<26}")
        text.append("dark" if dark else "light", style="dim")
        return text

    def on_mount(self) -> None:
        self.original = self.app.theme
        options = self.query_one(OptionList)
        if self.original in self.names:
            options.highlighted = self.names.index(self.original)
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.app.theme = event.option.id  # the live preview

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_keep(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(self.names[options.highlighted])

    def action_cancel(self) -> None:
        self.app.theme = self.original
        self.dismiss(None)
