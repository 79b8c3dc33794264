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
    from sqlalchemy import select

    from app.storage.engine import reader
    from app.storage.schema import policy_reviews

    with reader(engine).connect() as conn:
        return conn.execute(select(policy_reviews.c.sha256).where(policy_reviews.c.path == str(path))).scalar()


def accept(engine: Any, path: Path, text: str) -> None:
    """Record `text` as the accepted content of the policy file at `path`."""
    from sqlalchemy.dialects.sqlite import insert

    from app.storage.schema import policy_reviews

    digest = hashlib.sha256(text.encode()).hexdigest()
    stmt = insert(policy_reviews).values(path=str(path), sha256=digest, accepted_at=time.time())
    stmt = stmt.on_conflict_do_update(index_elements=[policy_reviews.c.path],
                                      set_={"sha256": digest, "accepted_at": time.time()})
    with engine.begin() as conn:
        conn.execute(stmt)


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
