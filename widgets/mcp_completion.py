"""Completion under an inspector form: the values a server offers (`completion/complete`) for the prompt
argument or template variable being typed, as a list to pick from (Down to enter it, Enter to take one).

`CompletionList` only shows and hands back values; `CatalogPane` asks the server in a worker.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class CompletionList(OptionList):
    """The offered values for one field; hidden while there are none."""

    DEFAULT_CSS = """
    CompletionList { height: auto; max-height: 8; width: 60; display: none; margin: 0 0 1 0;
                     border: round $accent; padding: 0; }
    CompletionList.-shown { display: block; }
    """

    class Picked(Message):
        """A value was chosen for the field at `index` (its position in the form)."""

        def __init__(self, index: int, value: str) -> None:
            super().__init__()
            self.index = index
            self.value = value

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.field_index: int | None = None

    def offer(self, index: int, name: str, values: list[str]) -> None:
        """Show `values` for the field `name` (at `index`); none hides the list."""
        self.field_index = index
        self.clear_options()
        if values:
            self.border_title = f"completions for {name} ({len(values)})"
            self.add_options([Option(Text(value), id=f"value-{i}") for i, value in enumerate(values)])
            self.highlighted = 0
        self.set_class(bool(values), "-shown")
        self.values = values

    def hide(self) -> None:
        self.field_index = None
        self.clear_options()
        self.remove_class("-shown")

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.field_index is not None:
            self.post_message(self.Picked(self.field_index, self.values[event.option_index]))
        self.hide()
