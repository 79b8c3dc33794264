"""The settings the settings screen edits, and writing them to config.toml with tomlkit: comments,
order and untouched keys stay exactly as the user wrote them (app/settings/config_edit.py does the writing)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping


@dataclass(frozen=True)
class Setting:
    """One editable setting: where it lives in config.toml, its label and kind."""

    section: str
    key: str
    label: str
    kind: str  # "bool", "int", "number", "choice"
    minimum: float = 0
    choices: tuple[str, ...] = ()  # a fixed "choice"; the theme's and model's come from the app


SETTINGS = (
    Setting("ui", "theme", "Theme", "choice"),
    Setting("ui", "bell", "Bell when a background workstream needs you", "bool"),
    Setting("ui", "notifications", "Desktop notifications", "bool"),
    Setting("model", "default", "Default model", "choice"),
    Setting("policy", "mode", "Default permission mode", "choice", choices=("ask", "accept-edits", "plan", "auto")),
    Setting("workstreams", "retention_days", "Keep history for (days, 0 = forever)", "int"),
    Setting("workstreams", "max_open", "Open workstreams at most", "int", 1),
    Setting("tools", "bash_timeout", "Command timeout (seconds)", "number"),
    Setting("tools", "output_limit", "Tool output kept (characters)", "int", 1),
    Setting("model", "auto_compact_pct", "Compact the context at (% full)", "number"),
    Setting("memory", "per_turn", "Memories given to each turn", "int"),
    Setting("memory", "content_kb", "Largest memory (KB)", "int", 1),
)


def current_values(config) -> dict[tuple[str, str], Any]:
    """The values a loaded Config has for each setting."""
    attrs = {("ui", "theme"): "theme", ("model", "default"): "default_model", ("policy", "mode"): "policy_mode",
             ("memory", "per_turn"): "memory_per_turn", ("memory", "content_kb"): "memory_content_kb"}
    return {(s.section, s.key): getattr(config, attrs.get((s.section, s.key), s.key), None) for s in SETTINGS}


def parse(setting: Setting, raw: str) -> Any:
    """A typed value from the form's text; ValueError names the setting and what it wants."""
    text = raw.strip()
    try:
        value: Any = int(text) if setting.kind == "int" else float(text)
    except ValueError:
        wanted = "a whole number" if setting.kind == "int" else "a number"
        raise ValueError(f"{setting.label}: {text!r} is not {wanted}") from None
    if value < setting.minimum:
        raise ValueError(f"{setting.label}: at least {setting.minimum:g}")
    return value


def write_settings(path: Path, changes: Mapping[tuple[str, str], Any], keymap: Mapping[str, str]) -> None:
    """Set each changed (section, key) and the [keymap] overrides (an empty keys string removes one)."""
    from app.settings.config_edit import edit_config

    def change(doc) -> None:
        import tomlkit

        for (section, key), value in changes.items():
            if section not in doc:
                doc.add(section, tomlkit.table())
            doc[section][key] = value
        if keymap:
            if "keymap" not in doc:
                doc.add("keymap", tomlkit.table())
            for binding_id, keys in keymap.items():
                if keys.strip():
                    doc["keymap"][binding_id] = keys.strip()
                elif binding_id in doc["keymap"]:
                    del doc["keymap"][binding_id]

    edit_config(Path(path), change)
