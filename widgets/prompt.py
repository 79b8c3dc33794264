"""The multi-line prompt: Enter sends, Ctrl+J or Shift+Enter inserts a newline."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = {"ctrl+j", "shift+enter"}


class PromptInput(TextArea):
    """A TextArea that submits on Enter."""

    @dataclass
    class Submitted(Message):
        prompt: "PromptInput"
        text: str

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, compact=True, **kwargs)
        self.placeholder = "Ask for work…  (Enter sends · Ctrl+J newline · Esc cancels a turn)"

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text
            if text.strip():
                self.clear()
                self.post_message(self.Submitted(self, text))
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
