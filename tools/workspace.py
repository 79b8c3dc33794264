"""Resolve paths given by a user or model against the workspace, and say whether they stay inside it."""

from __future__ import annotations

from pathlib import Path


def resolve_path(raw: str, workspace: Path) -> tuple[Path, bool]:
    """Return (resolved path, inside the workspace?).

    Relative paths are taken from the workspace; `~`, `..` and symlinks are resolved, so a
    symlink pointing out of the workspace counts as outside.
    """
    root = workspace.resolve()
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = root / path
    resolved = path.resolve()
    return resolved, resolved.is_relative_to(root)


def display_path(path: Path, workspace: Path) -> str:
    """The path as shown to model and user: relative inside the workspace, absolute outside."""
    root = workspace.resolve()
    if path == root:
        return "."
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return str(path)
