"""What a memory is: its fields, the allowed types and scopes, and the checks on what is saved."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

MemoryType = Literal["user", "project", "feedback", "reference"]
Scope = Literal["global", "workstream", "workspace", "team"]
TYPES: tuple[str, ...] = ("user", "project", "feedback", "reference")
SCOPES: tuple[str, ...] = ("global", "workstream", "workspace", "team")
CONTENT_LIMIT = 32 * 1024  # bytes of UTF-8 a memory's content may take
DESCRIPTION_LIMIT = 500  # characters
NAME_LIMIT = 64
_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*\Z")


class InvalidMemory(ValueError):
    """A memory that cannot be saved as given, explained in words for the model or the user."""


class RecallError(ValueError):
    """A recall query that cannot be run, explained for the model."""


@dataclass(frozen=True)
class Visibility:
    """Whose memories a workstream sees: its person's global ones, its own (by id), its workspace's (by
    path) and the team's.

    `person` keys global memories: '' on a personal (SQLite) store, the instance's name on a team's
    PostgreSQL store, where "global" means everywhere for me and "team" everywhere for everyone
    (`MemoryStore` fills it in). A global memory keyed '' (saved before, or copied from a personal
    store) is seen by every person."""

    workstream_id: str
    workspace: str
    person: str = ""

    def key_for(self, scope: str) -> str:
        """The scope_key a memory saved in `scope` gets from here."""
        return {"global": self.person, "workstream": self.workstream_id, "workspace": self.workspace,
                "team": ""}[check_scope(scope)]

    def sees(self, scope: str, scope_key: str) -> bool:
        """Whether a memory saved in (scope, scope_key) is visible from here."""
        if scope == "team":
            return True
        if scope == "global":
            return scope_key in ("", self.person)
        return scope in ("workstream", "workspace") and scope_key == self.key_for(scope)


@dataclass(frozen=True)
class Memory:
    """One stored memory. `scope_key` is '' (team, global), a person (global on a team store), a
    workstream id, or a workspace path. `who` saved it last (None: before that was recorded)."""

    name: str
    description: str
    content: str
    type: str
    scope: str
    scope_key: str
    created_at: float
    updated_at: float
    accessed_at: float | None = None
    access_count: int = 0
    id: int | None = None
    who: str | None = None


def check_name(name: str) -> str:
    """The name stripped, or InvalidMemory when it is not snake_case."""
    name = (name or "").strip()
    if not name or len(name) > NAME_LIMIT or not _NAME.match(name):
        raise InvalidMemory(f"memory name {name!r} must be snake_case (lowercase letters, digits and single "
                           f"underscores, starting with a letter, at most {NAME_LIMIT} characters), "
                           "e.g. indent_with_tabs")
    return name


def check_type(kind: str) -> str:
    if kind not in TYPES:
        raise InvalidMemory(f"memory type {kind!r} is not one of {', '.join(TYPES)}")
    return kind


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise InvalidMemory(f"memory scope {scope!r} is not one of {', '.join(SCOPES)}")
    return scope


def check_content(content: str, limit: int = CONTENT_LIMIT) -> str:
    """The content, or InvalidMemory when it is over the cap (32 KB unless [memory] content_kb says;
    counted in UTF-8 bytes)."""
    size = len(content.encode("utf-8"))
    if size > limit:
        raise InvalidMemory(f"memory content is {size:,} bytes; the limit is {limit:,} bytes ({limit // 1024} KB). "
                           "Save a shorter summary, or split it into several memories.")
    return content


def check_description(description: str) -> str:
    description = " ".join((description or "").split())
    if len(description) > DESCRIPTION_LIMIT:
        raise InvalidMemory(f"memory description is {len(description)} characters; keep it under "
                           f"{DESCRIPTION_LIMIT} (one line saying when the memory matters)")
    return description


def suggest_name(text: str) -> str:
    """A snake_case name drawn from the first words of `text` (for memories saved with '#')."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words[:6])[:NAME_LIMIT].strip("_") or "note"
    return name if name[0].isalpha() else "note_" + name
