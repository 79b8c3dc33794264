"""Keymaps: `[keymap]` in config.toml maps binding ids to keys (Textual's keymap support). Before it is
applied, unknown ids and keys that two bindings would share are found, each conflict naming both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from textual.binding import Binding


@dataclass(frozen=True)
class BindingInfo:
    """One binding that a keymap can move: its id, what it does (in words) and its keys."""

    id: str
    description: str
    keys: tuple[str, ...]


def main_bindings() -> list[BindingInfo]:
    """The bindings in force together on the main screen (its own and the app's)."""
    from app.screens.main import MainScreen

    return [BindingInfo(b.id, b.description or b.action, _keys(b.key))
            for b in MainScreen.BINDINGS if isinstance(b, Binding) and b.id]


def _keys(key_string: str) -> tuple[str, ...]:
    return tuple(key.strip() for key in key_string.split(",") if key.strip())


def effective(bindings: Iterable[BindingInfo], keymap: Mapping[str, str]) -> list[BindingInfo]:
    """The bindings with the keymap's keys in place of their own."""
    return [BindingInfo(b.id, b.description, _keys(keymap[b.id])) if b.id in keymap else b for b in bindings]


def keymap_problems(keymap: Mapping[str, str], bindings: list[BindingInfo] | None = None) -> list[str]:
    """Each problem in words: an id no binding has, an empty key, two bindings on one key."""
    bindings = main_bindings() if bindings is None else bindings
    known = {b.id for b in bindings}
    problems = [f"[keymap] {name} is not a binding id (known: {', '.join(sorted(known))})"
                for name in keymap if name not in known]
    problems += [f"[keymap] {name} gives no key" for name, keys in keymap.items() if not _keys(keys)]
    owners: dict[str, BindingInfo] = {}
    for binding in effective(bindings, keymap):
        for key in binding.keys:
            other = owners.setdefault(key, binding)
            if other is not binding:
                problems.append(f"[keymap] {key} is bound twice: {other.id} ({other.description}) and "
                                f"{binding.id} ({binding.description}); change one of them in [keymap]")
    return problems


def apply_keymap(app, keymap: Mapping[str, str]) -> list[str]:
    """Use the configured keymap; returns its problems for the user to read (it applies anyway)."""
    if not keymap:
        return []
    problems = keymap_problems(keymap)
    app.set_keymap(dict(keymap))
    return problems


# What /help says each binding does (the footer's short labels are too terse there).
HELP_TEXT = {
    "cancel_turn": "cancel the running turn", "help": "this help (also /help)",
    "edit_prompt": "compose the prompt in $VISUAL / $EDITOR", "new_workstream": "new workstream",
    "next_attention": "next workstream waiting for approval", "focus_next_pane": "next pane",
    "split_side_by_side": "split side by side", "split_stacked": "split stacked", "close_pane": "close pane",
    "mcp_inspector": "MCP inspector (also /mcp)", "previous_tab": "previous workstream",
    "next_tab": "next workstream", "quit": "quit", "copy_reply": "copy the last reply (OSC 52)",
    "copy_code": "copy a code block of the last reply",
}
KEY_NAMES = {"pageup": "PgUp", "pagedown": "PgDn", "escape": "Esc", "enter": "Enter", "tab": "Tab"}


def key_display(key: str) -> str:
    """"ctrl+pageup" as "Ctrl+PgUp", "f1" as "F1"; Textual's names for Option characters are left out."""
    return "+".join(KEY_NAMES.get(part, part.upper() if len(part) <= 3 else part.capitalize())
                    for part in key.split("+"))


def help_rows(keymap: Mapping[str, str]) -> list[tuple[str, str]]:
    """(keys, what they do) for /help: the main screen's bindings with the keymap applied."""
    rows, tabs = [], []
    for binding in effective(main_bindings(), keymap):
        keys = [key for key in binding.keys if "+" in key or len(key) <= 6]  # not "inverted_exclamation_mark"
        if binding.id.startswith("tab_"):
            tabs.append(keys[0] if keys else "")
        else:
            rows.append((" / ".join(key_display(k) for k in keys), HELP_TEXT.get(binding.id, binding.description)))
    if tabs == [f"alt+{n}" for n in range(1, 10)]:
        rows.append(("Alt+1…9", "switch to workstream 1…9"))
    else:
        rows.append((" ".join(key_display(k) for k in tabs), "switch to workstream 1…9"))
    return rows
