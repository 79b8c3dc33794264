"""Pick one of the last reply's code blocks to copy: the list shows each block's language and first
line; Enter copies the highlighted one, Esc cancels.

    app.push_screen(CodePickerScreen(blocks), callback)   # callback gets a CodeBlock or None
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint


@dataclass(frozen=True)
class CodeBlock:
    """A fenced code block of a reply: its language (may be empty) and its text."""

    language: str
    text: str

    def label(self) -> str:
        lines = self.text.splitlines() or [""]
        first = lines[0].strip()[:60]
        more = f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
        return f"{self.language or 'text'}: {first}{more}"


class CodePickerScreen(ModalScreen["CodeBlock | None"]):
    """A list of code blocks; choosing one dismisses with it."""

    DEFAULT_CSS = """
    CodePickerScreen { align: center middle; background: $background 60%; }
    #code-dialog { width: 90; max-width: 98%; height: auto; max-height: 90%; border: thick $primary;
                   background: $surface; padding: 1 2; }
    #code-dialog .heading { text-style: bold; padding: 0 0 1 0; }
    #code-dialog .hint { color: $text-muted; padding: 1 0 0 0; }
    #code-list { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="code_picker.cancel")]

    def __init__(self, blocks: list[CodeBlock]) -> None:
        super().__init__()
        self.blocks = blocks

    def compose(self) -> ComposeResult:
        with Vertical(id="code-dialog"):
            yield Static(f"Copy which code block? ({len(self.blocks)} in the last reply)", classes="heading")
            yield OptionList(*(Option(Text(f"{n}. {b.label()}")) for n, b in enumerate(self.blocks, 1)),
                             id="code-list")
            yield Static("Enter copies (OSC 52: works over SSH and in tmux)   "
                             f"{key_hint(self, 'code_picker.cancel')} cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.blocks[event.option_index])
