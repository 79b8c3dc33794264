"""A form drawn from `FormField`s (app/mcp/schema_form.py): one labelled input per field, required ones
marked, defaults filled. Used by the MCP inspector (arguments) and the elicitation modal (answers).

Strings and numbers get an Input, booleans a Checkbox, selects a Select, multi-selects a SelectionList,
lists of strings an Input (comma-separated or a JSON list) and anything else a JSON TextArea. Argument
fields are labelled with their name and JSON type, answer fields with their title and constraints.
`raw_values()` hands what was entered to `collect`; `show_errors()` puts its messages under the fields.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Select, SelectionList, Static, TextArea

from widgets.toggles import MarkedCheckbox, MarkedSelectionList

from app.mcp.schema_form import (ANSWERS, BOOLEAN, FORMAT_HINTS, INTEGER, JSON, MULTISELECT, NUMBER, SELECT, STRINGS,
                                 FormField, initial_text)

PLACEHOLDERS = {INTEGER: "a whole number", NUMBER: "a number", STRINGS: "comma-separated, or a JSON list"}


def field_label(form_field: FormField) -> Text:
    """Arguments: `name *  type  description`; answers: `Title *  constraints  — description`."""
    answers = form_field.purpose == ANSWERS
    label = Text()
    label.append(form_field.title if answers else form_field.name, style="bold")
    if form_field.required:
        label.append(" *", style="bold red")
    hint = form_field.hint() if answers else form_field.type_label
    if hint:
        label.append(f"  {hint}", style="dim")
    if answers and form_field.description:
        label.append(f"  — {form_field.description}", style="italic dim")
    elif not answers and (about := form_field.description or
                          (form_field.title if form_field.title != form_field.name else "")):
        label.append(f"  {about}", style="italic dim")
    return label


def error_text(form_field: FormField, message: str) -> Text:
    """The line under a wrong field."""
    if form_field.purpose == ANSWERS:
        return Text(f"{form_field.title} {message}", style="bold red")
    return Text(f"↳ {form_field.name} {message}", style="red")


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
            if form_field.kind != BOOLEAN:  # a checkbox carries its own label
                yield Static(field_label(form_field), classes="field-label")
            yield self._input(index, form_field)
            yield Static("", id=f"field-error-{index}", classes="field-error")

    def _input(self, index: int, form_field: FormField) -> Widget:
        wid = f"field-{index}"
        if form_field.kind == BOOLEAN:
            return MarkedCheckbox(field_label(form_field), form_field.has_default and bool(form_field.default), id=wid,
                            classes="field-input field-checkbox", compact=True)
        if form_field.kind == SELECT:
            values = [c.value for c in form_field.choices]
            value = form_field.default if form_field.has_default and form_field.default in values else Select.NULL
            return Select([(c.label, c.value) for c in form_field.choices], prompt="(choose one)", value=value,
                          allow_blank=value is Select.NULL or not form_field.required, id=wid, classes="field-input",
                          compact=True)
        if form_field.kind == MULTISELECT:
            chosen = form_field.default if isinstance(form_field.default, list) else []
            return MarkedSelectionList(*[(c.label, c.value, c.value in chosen) for c in form_field.choices],
                                       id=wid, classes="field-input field-multi", compact=True)
        if form_field.kind == JSON:
            area = TextArea(initial_text(form_field), id=wid, classes="field-input field-json", soft_wrap=True,
                            placeholder="JSON, e.g. {\"key\": \"value\"}", compact=True)
            area.cursor_blink = False
            return area
        placeholder = FORMAT_HINTS.get(form_field.format or "") or PLACEHOLDERS.get(form_field.kind, "")
        box = Input(initial_text(form_field), placeholder=placeholder, id=wid, classes="field-input",
                    type={INTEGER: "integer", NUMBER: "number"}.get(form_field.kind, "text"),
                    max_length=form_field.max_length or 0, select_on_focus=False, compact=True)
        box.cursor_blink = False
        return box

    def raw_values(self) -> dict[str, Any]:
        """What each field holds now (see `check_value` for the shapes)."""
        values: dict[str, Any] = {}
        for index, form_field in enumerate(self.fields):
            widget = self.query_one(f"#field-{index}")
            if isinstance(widget, Select):
                values[form_field.name] = None if widget.is_blank() else widget.value
            elif isinstance(widget, SelectionList):
                values[form_field.name] = list(widget.selected)
            elif isinstance(widget, TextArea):
                values[form_field.name] = widget.text
            else:
                values[form_field.name] = widget.value  # type: ignore[attr-defined]  # Checkbox, Input
        return values

    def set_value(self, name: str, value: Any) -> None:
        """Fill one field (tests and 'fill from last call' use this)."""
        index = next(i for i, f in enumerate(self.fields) if f.name == name)
        widget = self.query_one(f"#field-{index}")
        if isinstance(widget, TextArea):
            widget.load_text(str(value))
        elif isinstance(widget, SelectionList):
            widget.deselect_all()
            for chosen in value:
                widget.select(chosen)
        else:
            widget.value = value  # type: ignore[attr-defined]

    def show_errors(self, errors: dict[str, str]) -> None:
        """Each field's message under it (cleared where there is none, the input marked); focus the first."""
        first: Widget | None = None
        for index, form_field in enumerate(self.fields):
            message = errors.get(form_field.name, "")
            line = self.query_one(f"#field-error-{index}", Static)
            line.update(error_text(form_field, message) if message else "")
            line.set_class(bool(message), "-shown")
            widget = self.query_one(f"#field-{index}")
            widget.set_class(bool(message), "-invalid-field")
            if message and first is None:
                first = widget
        if first is not None:
            first.focus()
            first.scroll_visible(animate=False)

    def focus_first(self) -> None:
        if self.fields:
            self.query_one("#field-0").focus()
