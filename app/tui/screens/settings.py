"""The settings screen (palette, /settings): theme, bell and notifications, retention, limits, the
default model, the default permission mode and keymap overrides (every screen's and dialog's); Ctrl+S writes the changed ones to config.toml (comments kept).

    app.push_screen(SettingsScreen(config, themes, models, bindings), callback)  # callback: SavedSettings | None
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static, Switch

from widgets.toggles import MarkedSwitch

from widgets.key_hints import BindingInfo, key_display, key_hint
from app.tui.comforts.settings_file import SETTINGS, Setting, current_values, parse


@dataclass
class SavedSettings:
    """What changed: (section, key) -> value, and keymap overrides (binding id -> keys, "" removes)."""

    changes: dict[tuple[str, str], Any] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)


def _field_id(setting: Setting) -> str:
    return f"setting-{setting.section}-{setting.key}"


def _key_field_id(binding: BindingInfo) -> str:
    return "key-" + binding.id.replace(".", "--")  # a widget id may not hold a dot


class SettingsScreen(ModalScreen["SavedSettings | None"]):
    """One row per setting, then one per binding; nothing is written until Ctrl+S."""

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; background: $background 60%; }
    #settings-dialog { width: 100; max-width: 98%; height: 90%; border: thick $primary;
                       background: $surface; padding: 0 1; }
    #settings-dialog .heading { text-style: bold; padding: 1 1 0 1; }
    #settings-dialog .section { text-style: bold; color: $accent; padding: 1 0 0 0; }
    .setting-row { height: auto; }
    .setting-row .label { width: 46; padding: 1 1 0 0; }
    .setting-row Input, .setting-row Select { width: 1fr; }
    #settings-status { color: $error; padding: 0 1; height: auto; }
    #settings-dialog .hint { color: $text-muted; padding: 0 1 1 1; }
    """
    BINDINGS = [Binding("ctrl+s", "save", "Save", priority=True, id="settings.save"), Binding("escape", "dismiss(None)", "Cancel", id="settings.cancel")]

    def __init__(self, config, themes: list[str], models: list[str], bindings: list[BindingInfo], *,
                 config_path: object = "", theme: str | None = None) -> None:
        super().__init__()
        self.values = current_values(config)
        if self.values[("ui", "theme")] is None:
            self.values[("ui", "theme")] = theme  # the theme in use, when config.toml names none
        self.keymap = dict(getattr(config, "keymap", {}) or {})
        self.themes, self.models, self.bindings = themes, models, bindings
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        scope = "main"
        with Vertical(id="settings-dialog"):
            yield Static("Settings", classes="heading")
            with VerticalScroll():
                yield Static("General", classes="section")
                for setting in SETTINGS:
                    with Horizontal(classes="setting-row"):
                        yield Static(setting.label, classes="label")
                        yield self._editor(setting)
                yield Static("Keys (empty = the default shown)", classes="section")
                for binding in self.bindings:
                    if binding.scope != scope:
                        scope = binding.scope
                        yield Static(f"  {scope.replace('_', ' ')}", classes="section")
                    with Horizontal(classes="setting-row"):
                        yield Static(f"{binding.id}  ({binding.description})", classes="label")
                        yield Input(self.keymap.get(binding.id, ""), id=_key_field_id(binding),
                                    placeholder=", ".join(key_display(k) for k in binding.keys[:2]))
            yield Static("", id="settings-status")
            yield Static(f"{key_hint(self, 'settings.save')} saves to {self.config_path}   "
                         f"{key_hint(self, 'settings.cancel')} cancels", classes="hint")

    def _editor(self, setting: Setting):
        value = self.values[(setting.section, setting.key)]
        if setting.kind == "bool":
            return MarkedSwitch(bool(value), id=_field_id(setting))
        if setting.kind == "choice":
            names = list(setting.choices) or (self.themes if setting.key == "theme" else self.models)
            options = [(name, name) for name in names]
            return Select(options, value=value if value in names else Select.NULL, allow_blank=True,
                          id=_field_id(setting), prompt="(unset)")
        return Input("" if value is None else f"{value:g}" if isinstance(value, float) else str(value),
                     id=_field_id(setting))

    def on_mount(self) -> None:
        for widget in self.query(Input):
            widget.cursor_blink = False

    def action_save(self) -> None:
        try:
            saved = self._collect()
        except ValueError as error:
            self.query_one("#settings-status", Static).update(str(error))
            return
        self.dismiss(saved)

    def _collect(self) -> SavedSettings:
        saved = SavedSettings()
        for setting in SETTINGS:
            widget = self.query_one(f"#{_field_id(setting)}")
            if isinstance(widget, Switch):
                value: Any = widget.value
            elif isinstance(widget, Select):
                value = None if widget.value is Select.NULL else widget.value
            else:
                value = parse(setting, widget.value)
            if value is not None and value != self.values[(setting.section, setting.key)]:
                saved.changes[(setting.section, setting.key)] = value
        for binding in self.bindings:
            keys = self.query_one(f"#{_key_field_id(binding)}", Input).value.strip()
            if keys != self.keymap.get(binding.id, ""):
                saved.keymap[binding.id] = keys
        return saved
