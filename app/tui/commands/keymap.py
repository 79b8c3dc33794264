"""Keymaps: `[keymap]` in config.toml maps binding ids to keys (Textual's keymap support). Every binding
of every screen and dialog has an id: the main screen's are bare words (`new_workstream`), a dialog's
carry its name (`approval.approve`). Before a keymap is applied, unknown ids and keys that two bindings
of one screen would share are found, each conflict naming both."""

from __future__ import annotations

import difflib
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

from textual.binding import Binding

from widgets.key_hints import BindingInfo, binding_keys as _keys, key_display

SCANNED_PACKAGES = ("app.tui.screens", "widgets")  # where screens and widgets with BINDINGS live


def main_bindings() -> list[BindingInfo]:
    """The bindings in force together on the main screen (its own and the app's)."""
    from app.tui.screens.main import MainScreen

    return [_info(b) for b in MainScreen.BINDINGS if isinstance(b, Binding) and b.id]


def _info(binding: Binding) -> BindingInfo:
    return BindingInfo(binding.id or "", binding.description or binding.action, _keys(binding.key))


def all_bindings() -> list[BindingInfo]:
    """The main screen's bindings, then every dialog's and screen's, in scope order."""
    return main_bindings() + list(dialog_bindings())


@lru_cache(maxsize=1)
def dialog_bindings() -> tuple[BindingInfo, ...]:
    """The bindings with ids of every screen and widget class in SCANNED_PACKAGES but the main screen.

    Read from the source (`Binding("key", "action", "Description", id="screen.name")`), not by
    importing: importing every dialog (and the MCP SDK with the inspector) took over a second.
    tests/ui/test_keymap.py checks this reading against the imported classes."""
    import importlib.util

    found: dict[str, BindingInfo] = {}
    for package_name in SCANNED_PACKAGES:
        spec = importlib.util.find_spec(package_name)
        folders = list(spec.submodule_search_locations or []) if spec else []
        for path in sorted(p for folder in folders for p in Path(folder).glob("*.py")):
            if f"{package_name}.{path.stem}" == "app.tui.screens.main":
                continue
            source = _source(path)
            if "BINDINGS" in source:
                for binding in _declared_bindings(source):
                    found.setdefault(binding.id, binding)
    return tuple(sorted(found.values(), key=lambda b: b.scope))


def _declared_bindings(source: str) -> list[BindingInfo]:
    """The Binding(...) calls with an id in the BINDINGS lists of a module's classes."""
    import ast

    bindings: list[BindingInfo] = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BINDINGS"
                                                     for t in node.targets)):
            continue
        for call in ast.walk(node.value):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Binding":
                words = [a.value for a in call.args[:3] if isinstance(a, ast.Constant)]
                binding_id = next((k.value.value for k in call.keywords
                                   if k.arg == "id" and isinstance(k.value, ast.Constant)), None)
                description = next((k.value.value for k in call.keywords
                                    if k.arg == "description" and isinstance(k.value, ast.Constant)), None)
                if binding_id and len(words) >= 2:
                    bindings.append(BindingInfo(binding_id, description or (words[2] if len(words) > 2 else words[1]),
                                                _keys(words[0])))
    return bindings


def _source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def effective(bindings: Iterable[BindingInfo], keymap: Mapping[str, str]) -> list[BindingInfo]:
    """The bindings with the keymap's keys in place of their own."""
    return [BindingInfo(b.id, b.description, _keys(keymap[b.id])) if b.id in keymap else b for b in bindings]


def keymap_problems(keymap: Mapping[str, str], bindings: list[BindingInfo] | None = None) -> list[str]:
    """Each problem in words: an id no binding has, an empty key, two bindings of one screen on one key."""
    bindings = all_bindings() if bindings is None else bindings
    known = [b.id for b in bindings]
    problems = [_unknown(name, known) for name in keymap if name not in known]
    problems += [f"[keymap] {name} gives no key" for name, keys in keymap.items() if not _keys(keys)]
    owners: dict[tuple[str, str], BindingInfo] = {}
    for binding in effective(bindings, keymap):
        for key in binding.keys:
            other = owners.setdefault((binding.scope, key), binding)
            if other is not binding:
                problems.append(f"[keymap] {key} is bound twice: {other.id} ({other.description}) and "
                                f"{binding.id} ({binding.description}); change one of them in [keymap]")
    return problems


def _unknown(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"did you mean {' or '.join(close)}?" if close else "/help lists the keys; docs/keys.md every id"
    return f"[keymap] {name} is not a binding id ({hint})"


def apply_keymap(app, keymap: Mapping[str, str]) -> None:
    """Use the configured keymap now; its problems are found off the UI thread (the check reads every
    dialog's source, about 0.1 s the first time) and shown as warnings. It applies anyway."""
    import asyncio

    if not keymap:
        return

    async def report() -> None:
        for problem in await asyncio.to_thread(keymap_problems, dict(keymap)):
            app.notify(problem, severity="warning", timeout=15)

    app.set_keymap(dict(keymap))
    app.run_worker(report(), group="keymap", exit_on_error=False)


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


def main_key(app, binding_id: str) -> str:
    """The first key in force of a main-screen binding ("Ctrl+G", or where [keymap] moved it), for
    text that names it (the tab bar, the palette)."""
    keymap = getattr(app, "configured_keymap", None) or {}
    found = next((b for b in effective(main_bindings(), keymap) if b.id == binding_id), None)
    return key_display(found.keys[0]) if found and found.keys else ""


def keys_in_force(binding_id: str, keymap: Mapping[str, str]) -> str:
    """How a dialog's own hint names a binding's keys: its first key in force ("Esc", or "x" when moved)."""
    found = next((b for b in effective(dialog_bindings(), keymap) if b.id == binding_id), None)
    return key_display(found.keys[0]) if found and found.keys else ""


def dialog_rows(keymap: Mapping[str, str]) -> list[tuple[str, str]]:
    """(dialog, its keys in force) for /help: one row per dialog or screen, the keymap applied."""
    by_scope: dict[str, list[str]] = {}
    for binding in effective(dialog_bindings(), keymap):
        keys = "/".join(key_display(k) for k in binding.keys)
        by_scope.setdefault(binding.scope, []).append(f"{keys} {binding.description}")
    return [(scope.replace("_", " ").capitalize().replace("Mcp", "MCP"), " · ".join(parts))
            for scope, parts in by_scope.items()]
