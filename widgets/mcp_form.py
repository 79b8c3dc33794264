"""A form generated from `FormField`s: one labelled input per field, required ones marked, defaults filled.

Strings and numbers get an Input, booleans a Checkbox, enums a Select, lists of strings an Input
(comma-separated or a JSON list) and anything else a JSON TextArea. `raw_values()` hands what was
entered to `app.mcp.schema_form.collect`; `show_errors()` puts its messages under the fields.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, Static, TextArea

from app.mcp.schema_form import BOOLEAN, ENUM, INTEGER, JSON, NUMBER, STRINGS, FormField, initial_text


def field_label(form_field: FormField) -> Text:
    label = Text()
    label.append(form_field.name, style="bold")
    if form_field.required:
        label.append(" *", style="bold red")
    label.append(f"  {form_field.type_label}", style="dim")
    if form_field.description:
        label.append(f"  {form_field.description}", style="italic dim")
    return label


def _choice_label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class SchemaForm(Vertical):
    """The inputs for a list of fields; widget ids are positional, so any field name is safe."""

    def __init__(self, fields: list[FormField], *, empty: str = "No arguments.", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fields = fields
        self.empty = empty

    def compose(self) -> ComposeResult:
        if not self.fields:
            yield Static(self.empty, classes="form-empty")
        for index, form_field in enumerate(self.fields):
            if form_field.kind != BOOLEAN:
                yield Static(field_label(form_field), classes="field-label")
            yield self._input(index, form_field)
            yield Static("", id=f"field-error-{index}", classes="field-error")

    def _input(self, index: int, form_field: FormField) -> Widget:
        wid = f"field-{index}"
        if form_field.kind == BOOLEAN:
            value = bool(form_field.default) if form_field.has_default else False
            return Checkbox(field_label(form_field), value, id=wid, classes="field-input field-checkbox", compact=True)
        if form_field.kind == ENUM:
            options = [(_choice_label(c), c) for c in form_field.choices]
            value = form_field.default if form_field.has_default and form_field.default in form_field.choices \
                else Select.NULL
            return Select(options, prompt="(choose)", allow_blank=value is Select.NULL or not form_field.required,
                          value=value, id=wid, classes="field-input", compact=True)
        if form_field.kind == JSON:
            area = TextArea(initial_text(form_field), id=wid, classes="field-input field-json", soft_wrap=True,
                            placeholder="JSON, e.g. {\"key\": \"value\"}", compact=True)
            area.cursor_blink = False
            return area
        placeholder = {INTEGER: "a whole number", NUMBER: "a number",
                       STRINGS: "comma-separated, or a JSON list"}.get(form_field.kind, "")
        kind = {INTEGER: "integer", NUMBER: "number"}.get(form_field.kind, "text")
        field_input = Input(initial_text(form_field), placeholder=placeholder, type=kind, id=wid,
                            classes="field-input", select_on_focus=False, compact=True)
        field_input.cursor_blink = False
        return field_input

    def raw_values(self) -> dict[str, Any]:
        """What each field holds now: text, a checkbox state, or the chosen enum value (None when blank)."""
        values: dict[str, Any] = {}
        for index, form_field in enumerate(self.fields):
            widget = self.query_one(f"#field-{index}")
            if isinstance(widget, Checkbox):
                values[form_field.name] = widget.value
            elif isinstance(widget, Select):
                values[form_field.name] = None if widget.is_blank() else widget.value
            elif isinstance(widget, TextArea):
                values[form_field.name] = widget.text
            else:
                values[form_field.name] = widget.value  # type: ignore[attr-defined]
        return values

    def set_value(self, name: str, value: Any) -> None:
        """Fill one field (tests and 'fill from last call' use this)."""
        index = next(i for i, f in enumerate(self.fields) if f.name == name)
        widget = self.query_one(f"#field-{index}")
        if isinstance(widget, TextArea):
            widget.load_text(str(value))
        else:
            widget.value = value  # type: ignore[attr-defined]

    def show_errors(self, errors: dict[str, str]) -> None:
        """Put each message under its field (and mark the input); clears fields that are fine now."""
        for index, form_field in enumerate(self.fields):
            message = errors.get(form_field.name, "")
            error = self.query_one(f"#field-error-{index}", Static)
            error.update(Text(f"↳ {form_field.name} {message}", style="red") if message else "")
            error.display = bool(message)
            self.query_one(f"#field-{index}").set_class(bool(message), "-invalid-field")
        first = next((i for i, f in enumerate(self.fields) if f.name in errors), None)
        if first is not None:
            self.query_one(f"#field-{first}").focus()

    def focus_first(self) -> None:
        if self.fields:
            self.query_one("#field-0").focus()
