"""The one form widget both MCP screens use, drawn from the same schema for arguments (inspector) and for
answers (elicitation): which widget each field gets, the values it hands back, and the messages shown."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input, Static, TextArea

from widgets.toggles import MarkedCheckbox, MarkedSelectionList

from app.mcp.schema_form import ANSWERS, ARGUMENTS, collect, fields_from_schema
from styles import STYLES_DIR
from widgets.schema_form import SchemaForm

SCHEMA = {"type": "object", "required": ["sizes"], "properties": {
    "sizes": {"type": "array", "title": "Sizes", "items": {"oneOf": [{"const": "s", "title": "Small"},
                                                                    {"const": "l", "title": "Large"}]}},
    "opts": {"type": "object", "title": "Options", "default": {"k": 1}},
    "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
    "on": {"type": "boolean"},
    "mail": {"type": "string", "format": "email", "title": "Mail"}}}


class FormApp(App):
    CSS_PATH = STYLES_DIR / "mcp.tcss"

    def __init__(self, purpose) -> None:
        super().__init__()
        self.fields = fields_from_schema(SCHEMA, purpose)

    def compose(self):
        yield SchemaForm(self.fields)


def shown_errors(form: SchemaForm) -> set[str]:
    return {str(line.content) for line in form.query(".field-error.-shown").results(Static)}


async def test_widgets_values_and_messages_for_arguments_and_answers() -> None:
    for purpose in (ARGUMENTS, ANSWERS):
        app = FormApp(purpose)
        async with app.run_test(size=(100, 50)) as pilot:
            form = app.query_one(SchemaForm)
            widgets = {f.name: form.query_one(f"#field-{i}") for i, f in enumerate(form.fields)}
            assert {name: type(w) for name, w in widgets.items()} == {
                "sizes": MarkedSelectionList, "opts": TextArea, "tags": Input, "on": MarkedCheckbox, "mail": Input}
            assert form.raw_values() == {"sizes": [], "opts": '{\n  "k": 1\n}', "tags": "a", "on": False, "mail": ""}
            assert widgets["tags"].placeholder == "comma-separated, or a JSON list"
            assert widgets["mail"].placeholder == "name@example.com"
            labels = [str(label.content) for label in form.query(".field-label").results(Static)]
            assert labels[0] == ("sizes *  some of  Sizes" if purpose == ARGUMENTS else "Sizes *  any number")

            form.set_value("mail", "ann@")
            values, errors = collect(form.fields, form.raw_values())
            form.show_errors(errors)
            await pilot.pause()
            if purpose == ARGUMENTS:  # formats are hints; an unchecked optional checkbox is left out
                assert errors == {"sizes": "choose at least one"}
                assert shown_errors(form) == {"↳ sizes choose at least one"}
            else:  # titles in messages; formats checked; a checkbox is an answer
                assert errors == {"sizes": "choose at least one", "mail": "must be an email address, e.g. "
                                  "name@example.com"}
                assert shown_errors(form) == {"Sizes choose at least one",
                                              "Mail must be an email address, e.g. name@example.com"}
            assert app.focused is widgets["sizes"] and widgets["sizes"].has_class("-invalid-field")

            form.set_value("sizes", ["l", "s"])
            form.set_value("opts", '{"k": [2]}')
            form.set_value("mail", "ann@example.com")
            values, errors = collect(form.fields, form.raw_values())
            form.show_errors(errors)
            await pilot.pause()
            assert errors == {} and shown_errors(form) == set()
            expected = {"sizes": ["s", "l"], "opts": {"k": [2]}, "tags": ["a"], "mail": "ann@example.com"}
            assert values == (expected if purpose == ARGUMENTS else {**expected, "on": False})
            assert not any(w.has_class("-invalid-field") for w in widgets.values())
