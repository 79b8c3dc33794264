"""Project files that make Whimbrel run things: `.whimbrel/policy.toml` (rules and hooks), `.mcp.json`
(MCP servers) and skills in `.whimbrel/skills/` that set a permission mode. A cloned repository is not trusted, so neither applies until the user accepted the file as
it is now: its SHA-256 is stored (`policy_reviews`, by path), a new or changed file waits for review, and
what is applied is the very text that was reviewed (never a second read of the file).

The review itself: the policy screen in the window (/policy, A accepts) and `whimbrel policy review
[--accept]`; what each file would run is described for it by `app/mcp/project_review.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

State = Literal["none", "accepted", "unreviewed", "unreadable"]
Kind = Literal["policy", "mcp", "skill", "team"]
RELATIVE = Path(".whimbrel") / "policy.toml"
MCP_RELATIVE = Path(".mcp.json")
SKILLS_RELATIVE = Path(".whimbrel") / "skills"
# a skill file that names this setting is reviewed (a quoted or escaped key still spells it, or its
# mode never applies: `skill_mode_accepted` checks the file itself)
_SETS_MODE = re.compile(r"permission[_\\u005f]*mode", re.IGNORECASE)
REVIEW_HOW = "/policy in the window (A accepts), or `whimbrel policy review --accept`"
TEAM_ACCEPTED = "team-policy.accepted"  # in the data dir: the SHA-256 of the team policy this instance accepted


@dataclass
class ProjectFile:
    """A project file as found: its text and data, and whether it applies."""

    path: Path
    state: State
    text: str = ""
    data: dict[str, Any] | None = None
    problem: str = ""
    kind: Kind = "policy"
    author: str = ""  # who wrote it (a team's policy in the store: app/permissions/team_policy.py)
    review_dir: Path | None = None  # where its acceptance is kept when not in the store (a data dir)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def server_names(self) -> list[str]:
        """The MCP servers a `.mcp.json` defines (its names, as written)."""
        servers = (self.data or {}).get("mcpServers", (self.data or {}).get("servers", self.data or {}))
        return [str(name) for name in servers] if isinstance(servers, dict) else []

    def notice(self) -> str:
        """What the user should hear about this file ("" when it applies or is absent)."""
        if self.state == "unreadable":
            what = "its rules and hooks do not apply" if self.kind == "policy" else "none of its MCP servers start"
            return f"{self.problem}; {what} until it is fixed and accepted"
        if self.state != "unreviewed":
            return ""
        if self.kind == "mcp":
            names = ", ".join(self.server_names) or "none"
            return (f"{self.path} is new or changed: its MCP servers ({names}) do not start until you review "
                    f"and accept it ({REVIEW_HOW})")
        if self.kind == "team":
            by = f" (set by {self.author})" if self.author else ""
            return (f"The team's policy in the store{by} is new or changed: its rules do not apply here until "
                    f"you review and accept it ({REVIEW_HOW})")
        if self.kind == "skill":
            return (f"{self.path} is new or changed: the permission mode it sets does not apply until you "
                    f"accept it ({REVIEW_HOW})")
        return f"{self.path} is new or changed: its rules and hooks do not apply until you accept it ({REVIEW_HOW})"


def policy_path(workspace: Path) -> Path:
    return Path(workspace).resolve() / RELATIVE


def mcp_path(workspace: Path) -> Path:
    return Path(workspace).resolve() / MCP_RELATIVE


def accepted_digest(engine: Any, path: Path) -> str | None:
    from app.storage.engine import reader

    with reader(engine).connect() as conn:
        return conn.execute("SELECT sha256 FROM policy_reviews WHERE path = ?", (str(path),)).scalar()


def accept(engine: Any, path: Path, text: str) -> None:
    """Record `text` as the accepted content of the project file at `path`."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    with engine.begin() as conn:
        conn.execute("INSERT INTO policy_reviews (path, sha256, accepted_at) VALUES (?, ?, ?) ON CONFLICT(path)"
                     " DO UPDATE SET sha256 = excluded.sha256, accepted_at = excluded.accepted_at",
                     (str(path), digest, time.time()))


def accept_files(engine: Any, files: list[ProjectFile]) -> list[ProjectFile]:
    """Accept each file that waits for review, as the text it was read with (what the user was shown);
    returns those accepted. A file that changed since is then simply unreviewed again."""
    done = []
    for found in files:
        if found.state == "unreviewed" and found.text:
            if found.kind == "team":
                if found.review_dir is None:
                    continue  # no data dir to keep this instance's acceptance in: it stays unreviewed
                accept_in_dir(found.review_dir, found.text)
            else:
                accept(engine, found.path, found.text)
            done.append(found)
    return done


def accept_in_dir(data_dir: Path, text: str) -> None:
    """Record `text` as this instance's accepted team policy: its SHA-256 in a private file of the
    data dir (`TEAM_ACCEPTED`), so the acceptance is this instance's, not the store's."""
    import os

    from app.storage.private import open_private, private_dir

    path = private_dir(Path(data_dir)) / TEAM_ACCEPTED
    part = path.with_suffix(".tmp")
    with os.fdopen(open_private(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w", encoding="ascii") as out:
        out.write(hashlib.sha256(text.encode()).hexdigest() + "\n")
    os.replace(part, path)


def accepted_in_dir(data_dir: Path | None) -> str | None:
    """The SHA-256 of the team policy accepted in `data_dir` (None: none, or no data dir)."""
    if data_dir is None:
        return None
    try:
        return (Path(data_dir) / TEAM_ACCEPTED).read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _parse_toml(path: Path, text: str) -> tuple[dict[str, Any] | None, str]:
    import tomllib

    try:
        return tomllib.loads(text), ""
    except tomllib.TOMLDecodeError as error:
        return None, f"{path}: invalid TOML: {error}"


def _parse_json(path: Path, text: str) -> tuple[dict[str, Any] | None, str]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"{path} line {error.lineno} column {error.colno}: invalid JSON: {error.msg}"
    if not isinstance(data, dict):
        return None, f"{path}: expected a JSON object with 'mcpServers'"
    return data, ""


def _skill_mode(path: Path, text: str) -> tuple[dict[str, Any], str]:
    """What the review shows of a skill: the mode it asks for, as written."""
    found = re.search(r"permission_mode\W{1,4}([\w-]+)", text)
    return {"permission_mode": found.group(1) if found else "(see the file)"}, ""


def _read(path: Path, engine: Any | None, kind: Kind) -> ProjectFile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProjectFile(path, "none", kind=kind)
    except (OSError, UnicodeDecodeError) as error:
        return ProjectFile(path, "unreadable", problem=f"{path}: cannot be read: {error}", kind=kind)
    parse = {"policy": _parse_toml, "mcp": _parse_json, "skill": _skill_mode}[kind]
    data, problem = parse(path, text)
    if data is None:
        return ProjectFile(path, "unreadable", text, problem=problem, kind=kind)
    found = ProjectFile(path, "unreviewed", text, data, kind=kind)
    if engine is not None and accepted_digest(engine, path) == found.digest:
        found.state = "accepted"
    return found


def read_project(workspace: Path, engine: Any | None) -> ProjectFile:
    """The project policy file and its review state (without a store nothing is accepted)."""
    return _read(policy_path(workspace), engine, "policy")


def read_mcp_file(workspace: Path, engine: Any | None) -> ProjectFile:
    """The project's `.mcp.json` and its review state (without a store nothing is accepted)."""
    return _read(mcp_path(workspace), engine, "mcp")


def read_skill_files(workspace: Path, engine: Any | None) -> list[ProjectFile]:
    """The project's skills that set a permission mode, each with its review state."""
    folder = Path(workspace).resolve() / SKILLS_RELATIVE
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        if path.suffix in (".toml", ".md") and path.is_file():
            try:
                if not _SETS_MODE.search(path.read_text(encoding="utf-8", errors="replace")):
                    continue
            except OSError:
                continue
            out.append(_read(path, engine, "skill"))
    return out


def skill_mode_accepted(engine: Any | None, user_skills: Path | None, path: Path, version: str) -> bool:
    """May the skill at `path`, parsed as `version` (its content hash's start), set the permission mode?
    One of the user's own (in `user_skills`, the config dir's skills/) may; any other (a project's, a
    worktree's) only when its file, as it is now, was accepted."""
    path = Path(path).resolve()
    if user_skills is not None and path.is_relative_to(Path(user_skills).expanduser().resolve()):
        return True
    try:
        content = path.read_bytes()
    except OSError:
        return False
    digest = hashlib.sha256(content).hexdigest()
    return engine is not None and digest.startswith(version) and accepted_digest(engine, path) == digest


def project_files(workspace: Path, engine: Any | None) -> list[ProjectFile]:
    """Every project file that starts things (the policy file and .mcp.json present or not), with its
    review state."""
    return [read_project(workspace, engine), read_mcp_file(workspace, engine), *read_skill_files(workspace, engine)]


def project_env(config: Any) -> dict[str, tuple[str, ...]]:
    """`[mcp.project_env]` of config.toml: for each server of a project's `.mcp.json`, by name, the
    environment variables its `${VAR}`s may be filled from (none unless named there)."""
    table = getattr(config, "mcp_project_env", None) or {}
    return {str(name): tuple(v for v in names if isinstance(v, str)) for name, names in table.items()
            if isinstance(names, (list, tuple))}
