"""How a key is named where the window shows it ("Ctrl+PgUp", "Esc"), and a dialog's or widget's hint
naming the key in force of one of its own bindings ([keymap] applied). Widgets use these; the
keymap itself (app/tui/commands/keymap.py) does too."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

MAIN = "main"


@dataclass(frozen=True)
class BindingInfo:
    """One binding that a keymap can move: its id, what it does (in words) and its keys."""

    id: str
    description: str
    keys: tuple[str, ...]

    @property
    def scope(self) -> str:
        """The screen it belongs to: the id's prefix (`approval.approve`), "main" for bare ids."""
        return self.id.split(".", 1)[0] if "." in self.id else MAIN


KEY_NAMES = {"pageup": "PgUp", "pagedown": "PgDn", "escape": "Esc", "enter": "Enter", "tab": "Tab",
             "exclamation_mark": "!", "delete": "Delete"}


def key_display(key: str) -> str:
    """"ctrl+pageup" as "Ctrl+PgUp", "f1" as "F1"; Textual's names for Option characters are left out."""
    if len(key) == 1:
        return key  # a letter key as typed: "y" and "Y" are different bindings
    return "+".join(KEY_NAMES.get(part, part.upper() if len(part) <= 3 else part.capitalize())
                    for part in key.split("+"))


def binding_keys(key_string: str) -> tuple[str, ...]:
    """A binding's key string ("ctrl+q,escape") as its keys."""
    return tuple(key.strip() for key in key_string.split(",") if key.strip())


def key_hint(screen, binding_id: str, *, every: bool = False, owner: type | None = None) -> str:
    """A dialog's own hint line names the first key in force of one of its bindings ("Esc", or the
    key [keymap] moved it to; `every`: all of them, "Enter/b"). Reads the screen's (or widget's) own
    BINDINGS, and those of `owner`, a widget class on it whose binding the hint names."""
    keymap = getattr(screen.app, "configured_keymap", None) or {}
    for cls in (*type(screen).__mro__, *(owner.__mro__ if owner else ())):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id == binding_id:
                keys = binding_keys(keymap.get(binding_id) or binding.key)
                return "/".join(key_display(k) for k in (keys if every else keys[:1]))
    return ""
