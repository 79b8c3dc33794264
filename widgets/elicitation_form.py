"""The inputs of an elicitation form: one labelled widget per field, required ones marked.

Strings, numbers and JSON get an Input, booleans a Checkbox, single-selects a Select and
multi-selects a SelectionList; defaults are filled in. `raw_values()` hands what was entered to
`app.mcp.elicitation_form.collect`; `show_errors()` puts its messages under the fields.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, SelectionList, Static

from app.mcp.elicitation_form import FORMAT_HINTS, FormField, initial_text


def field_label(field: FormField) -> Text:
    """`Title *  email  — description` (the star marks a required field)."""
    label = Text()
    label.append(field.title, style="bold")
    if field.required:
        label.append(" *", style="bold red")
    hint = field.hint()
    if hint:
        label.append(f"  {hint}", style="dim")
    if field.description:
        label.append(f"  — {field.description}", style="italic dim")
    return label


class ElicitationForm(Vertical):
    """The widgets for a list of fields; widget ids are positional, so any property name is safe."""

    def __init__(self, fields: list[FormField], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fields = fields

    def compose(self) -> ComposeResult:
        if not self.fields:
            yield Static("The server asks for no values: accept to confirm.", classes="form-empty")
        for index, field in enumerate(self.fields):
            if field.kind != "boolean":  # a checkbox carries its own label
                yield Static(field_label(field), classes="field-label")
            yield self._input(index, field)
            yield Static("", id=f"field-error-{index}", classes="field-error")

    def _input(self, index: int, field: FormField) -> Widget:
        wid = f"field-{index}"
        if field.kind == "boolean":
            return Checkbox(field_label(field), bool(field.default), id=wid, classes="field-input field-check",
                            compact=True)
        if field.kind == "select":
            values = [c.value for c in field.choices]
            value = field.default if field.default in values else Select.NULL
            return Select([(c.label, c.value) for c in field.choices], prompt="(choose one)", value=value,
                          allow_blank=value is Select.NULL or not field.required, id=wid, classes="field-input",
                          compact=True)
        if field.kind == "multiselect":
            chosen = field.default if isinstance(field.default, list) else []
            return SelectionList(*[(c.label, c.value, c.value in chosen) for c in field.choices], id=wid,
                                 classes="field-input field-multi", compact=True)
        placeholder = FORMAT_HINTS.get(field.format or "", "") or {
            "integer": "a whole number", "number": "a number", "json": "JSON"}.get(field.kind, "")
        box = Input(initial_text(field), placeholder=placeholder, id=wid, classes="field-input",
                    type={"integer": "integer", "number": "number"}.get(field.kind, "text"),
                    max_length=field.max_length or 0, select_on_focus=False, compact=True)
        box.cursor_blink = False
        return box

    def raw_values(self) -> dict[str, Any]:
        """What each field holds now (see `check_value` for the shapes)."""
        values: dict[str, Any] = {}
        for index, field in enumerate(self.fields):
            widget = self.query_one(f"#field-{index}")
            if isinstance(widget, Checkbox):
                values[field.name] = widget.value
            elif isinstance(widget, Select):
                values[field.name] = None if widget.value is Select.NULL else widget.value
            elif isinstance(widget, SelectionList):
                values[field.name] = list(widget.selected)
            elif isinstance(widget, Input):
                values[field.name] = widget.value
        return values

    def show_errors(self, errors: dict[str, str]) -> None:
        """Each field's message under it (cleared where there is none); focus the first wrong field."""
        first: Widget | None = None
        for index, field in enumerate(self.fields):
            message = errors.get(field.name, "")
            line = self.query_one(f"#field-error-{index}", Static)
            line.update(Text(f"{field.title} {message}" if message else "", style="bold red"))
            line.set_class(bool(message), "-shown")
            if message and first is None:
                first = self.query_one(f"#field-{index}")
        if first is not None:
            first.focus()
            first.scroll_visible(animate=False)
