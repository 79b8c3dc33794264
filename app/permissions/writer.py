"""Saving a rule from the modal: into config.toml (everywhere) or the project's policy file (this
project). A project file the user had accepted stays accepted after Whimbrel adds a rule to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings.config_edit import edit_config
from app.permissions.project import accept, policy_path, read_project


def _append(doc: Any, table_path: tuple[str, ...], spec: str, decision: str) -> None:
    import tomlkit

    container = doc
    for name in table_path[:-1]:
        if name not in container:
            container.add(name, tomlkit.table())
        container = container[name]
    last = table_path[-1]
    if last not in container:
        container.add(last, tomlkit.aot())
    entry = tomlkit.table()
    entry.add("rule", spec)
    entry.add("decision", decision)
    container[last].append(entry)


def save_user_rule(config_path: Path, spec: str, decision: str = "allow") -> Path:
    """Append `[[policy.rules]]` to config.toml; returns the file written."""
    edit_config(config_path, lambda doc: _append(doc, ("policy", "rules"), spec, decision))
    return Path(config_path)


def save_project_rule(workspace: Path, engine: Any | None, spec: str, decision: str = "allow") -> Path:
    """Append `[[rules]]` to .whimbrel/policy.toml; re-accept it when it was accepted (or new)."""
    before = read_project(workspace, engine)
    path = policy_path(workspace)
    edit_config(path, lambda doc: _append(doc, ("rules",), spec, decision))
    if engine is not None and before.state in ("accepted", "none"):
        accept(engine, path, path.read_text(encoding="utf-8"))
    return path


def _remove(doc: Any, table_path: tuple[str, ...], spec: str) -> bool:
    """Drop `spec` from the table's allow/ask/deny lists and its rules array; True when found."""
    container = doc
    for name in table_path:
        if name not in container:
            return False
        container = container[name]
    found = False
    for decision in ("allow", "ask", "deny"):
        if decision in container and spec in list(container[decision]):
            container[decision].remove(spec)
            found = True
    rules = container.get("rules")
    if rules is not None:
        for index in reversed(range(len(rules))):
            if rules[index].get("rule") == spec:
                del rules[index]
                found = True
    return found


def remove_user_rule(config_path: Path, spec: str) -> bool:
    """Delete a rule from config.toml's [policy]; False when it is not written there."""
    return edit_config(config_path, lambda doc: _remove(doc, ("policy",), spec))


def remove_project_rule(workspace: Path, engine: Any | None, spec: str) -> bool:
    """Delete a rule from .whimbrel/policy.toml, keeping an accepted file accepted."""
    before = read_project(workspace, engine)
    if before.state == "none":
        return False
    path = policy_path(workspace)
    removed = edit_config(path, lambda doc: _remove(doc, (), spec))
    if removed and engine is not None and before.state == "accepted":
        accept(engine, path, path.read_text(encoding="utf-8"))
    return removed
