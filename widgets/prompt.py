"""The multi-line prompt: Enter sends, Ctrl+J or Shift+Enter inserts a newline, Up/Down recall history."""

from __future__ import annotations

import time
import unicodedata
from dataclasses import dataclass
from typing import Callable

from textual import events
from textual.message import Message

from app.engine.loop_share import SHARE
from widgets.textual_internals import KeyFirstTextArea

TYPING_QUIET = 0.3  # a pause this long ends a burst of typing: held output and full-speed streams resume
NEWLINE_KEYS = {"ctrl+j", "shift+enter"}
# Alt+1..9 arrive from xterm-like terminals as ESC+digit, which Textual decodes as these macOS Option
# characters; the prompt must leave them to the tab-switching bindings instead of typing them.
ALT_DIGIT_CHARACTERS = frozenset("¡™£¢∞§¶•ª")


def is_format_character(character: str | None) -> bool:
    """An invisible formatting character (Unicode category Cf: zero-width space and joiners, bidi
    marks and controls, BOM): Python calls it unprintable, so a TextArea would drop it, breaking a ZWJ
    emoji apart. It is kept in the prompt as typed; the screen shows bidi controls inert
    (widgets/terminal_guard.py) and the model gets the real text."""
    return character is not None and len(character) == 1 and unicodedata.category(character) == "Cf"


class PromptInput(KeyFirstTextArea):
    """A TextArea that submits on Enter, completes slash commands on Tab and recalls earlier prompts."""

    last_typed = 0.0  # monotonic time of the last key any prompt got: streamed output yields to typing

    class Echoed(Message):
        """A typed key has been painted: held stream output may go now, before the next key comes."""

    @dataclass
    class Submitted(Message):
        prompt: "PromptInput"
        text: str

        @property
        def control(self) -> "PromptInput":
            return self.prompt

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, compact=True, **kwargs)
        self.placeholder = "Ask for work…  (Enter sends · Ctrl+J newline · / for commands · Esc cancels a turn)"
        self.past_prompts: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self.completer: Callable[[str], str | None] | None = None

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character in ALT_DIGIT_CHARACTERS:
            return False
        return super().check_consume_key(key, character)

    def take_key(self, event: events.Key) -> bool:
        """Enter sends, Ctrl+J a newline, Tab completes, Up/Down recall; other keys are typed."""
        if event.key != "enter":  # sending is not typing: the reply should show at once
            PromptInput.last_typed = time.monotonic()
            SHARE.defer_to_typing(TYPING_QUIET)  # streams give the keyboard the loop for a moment
            self.call_after_refresh(self._echoed)
            if echo_at_once := getattr(self.screen, "echo_at_once", None):  # the main screen's
                echo_at_once(self)
        handled = True
        if event.key == "enter":
            text = self.text
            if text.strip():
                self.clear()
                self._history_index = None
                if not self.past_prompts or self.past_prompts[-1] != text:
                    self.past_prompts.append(text)
                self.post_message(self.Submitted(self, text))
        elif event.key in NEWLINE_KEYS:
            self.insert("\n")
        elif event.key == "tab" and self.completer is not None and (done := self.completer(self.text)):
            self.text = done
            self.move_cursor(self.document.end)
        elif event.key == "up" and self.cursor_location[0] == 0 and self.past_prompts:
            self._recall(-1)
        elif event.key == "down" and self._history_index is not None and \
                self.cursor_location[0] == self.document.line_count - 1:
            self._recall(+1)
        elif is_format_character(event.character):
            start, end = self.selection  # typed like any character (the TextArea types printable ones only)
            self.move_cursor(self.replace(event.character, start, end, maintain_selection_offset=False).end_location)
        else:
            handled = False
        return handled

    def give_back(self, text: str) -> None:
        """A sent prompt that could not be kept (the team store did not answer) comes back, in front of
        whatever was typed since, so nothing typed is lost."""
        typed = self.text
        self.text = text if not typed.strip() else f"{text}\n{typed}"
        self.move_cursor(self.document.end)

    def on_paste(self, event: events.Paste) -> None:
        """A pasted image path (a terminal's drag and drop) attaches the image instead of typing it."""
        attach = getattr(getattr(self.app, "daily", None), "attach_pasted_image", None)
        if attach is not None and attach(self, event.text):
            event.prevent_default()
            event.stop()

    def _echoed(self) -> None:
        """The key is on screen: streams may take their turn, and held output its piece."""
        SHARE.echo_painted()
        self.post_message(self.Echoed())

    def _recall(self, step: int) -> None:
        """Move through history; stepping past the newest entry restores what was being typed."""
        if self._history_index is None:
            self._draft = self.text
            index = len(self.past_prompts) + step
        else:
            index = self._history_index + step
        if index >= len(self.past_prompts):
            self._history_index = None
            self.text = self._draft
        else:
            self._history_index = max(0, index)
            self.text = self.past_prompts[self._history_index]
        self.move_cursor(self.document.end)
