"""A project's `.whimbrel/policy.toml`: its rules and hooks apply only once the user accepted the
file as it is now (its SHA-256 is stored); a new or changed file waits for review."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

State = Literal["none", "accepted", "unreviewed", "unreadable"]
RELATIVE = Path(".whimbrel") / "policy.toml"


@dataclass
class ProjectFile:
    """The project policy file as found: its text and data, and whether it applies."""

    path: Path
    state: State
    text: str = ""
    data: dict[str, Any] | None = None
    problem: str = ""

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def policy_path(workspace: Path) -> Path:
    return Path(workspace).resolve() / RELATIVE


def accepted_digest(engine: Any, path: Path) -> str | None:
    from app.storage.engine import reader

    with reader(engine).connect() as conn:
        return conn.execute("SELECT sha256 FROM policy_reviews WHERE path = ?", (str(path),)).scalar()


def accept(engine: Any, path: Path, text: str) -> None:
    """Record `text` as the accepted content of the policy file at `path`."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    with engine.begin() as conn:
        conn.execute("INSERT INTO policy_reviews (path, sha256, accepted_at) VALUES (?, ?, ?) ON CONFLICT(path)"
                     " DO UPDATE SET sha256 = excluded.sha256, accepted_at = excluded.accepted_at",
                     (str(path), digest, time.time()))


def read_project(workspace: Path, engine: Any | None) -> ProjectFile:
    """The project file and its review state (without a store nothing is accepted)."""
    path = policy_path(workspace)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProjectFile(path, "none")
    except (OSError, UnicodeDecodeError) as error:
        return ProjectFile(path, "unreadable", problem=f"{path}: cannot be read: {error}")
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return ProjectFile(path, "unreadable", text, problem=f"{path}: invalid TOML: {error}")
    found = ProjectFile(path, "unreviewed", text, data)
    if engine is not None and accepted_digest(engine, path) == found.digest:
        found.state = "accepted"
    return found
