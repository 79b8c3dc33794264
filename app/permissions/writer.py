"""Saving a rule from the modal: into config.toml (everywhere) or the project's policy file (this
project). A project file the user had accepted stays accepted after Whimbrel adds a rule to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.config_edit import edit_config
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
