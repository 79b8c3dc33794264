"""A team's permission rules kept in the store (`team_policy`, one row), reviewed once per instance.

Anyone on the store writes them (`whimbrel policy team set FILE`, the same TOML as a project's
`.whimbrel/policy.toml`: `allow`/`ask`/`deny` lists and `[[rules]]`); each instance applies them only
once its user accepted that very text, exactly as a project file: the text's SHA-256 is recorded as
accepted, a new or changed text waits for review, and what applies is the text that was reviewed
(read once from the store, never read again to apply). The acceptance is this instance's alone: it is
kept in the data dir (`team-policy.accepted`, app/permissions/project.py's `accept_in_dir`), not in the store, so a teammate's review never accepts
the rules for you, and one machine's review does not accept them for another.

Team rules are weighed like every other rule (deny, then ask, then allow, whatever the scope), so a
team's allow never widens what a local deny forbids, as a project's cannot. Hooks are not taken from
the store: a hook runs a command on every machine, so hooks stay in each machine's config and project.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from app.permissions.project import ProjectFile, _parse_toml, accepted_in_dir

KEY = "policy"
SHOWN_AS = Path("the team's policy in the store")  # how the file is named in notices and reviews
LIMIT = 256 * 1024  # bytes of TOML a team policy may take


class TeamPolicyError(ValueError):
    """A team policy that cannot be stored as given, in words."""


def stored(engine: Any) -> dict[str, Any] | None:
    """The team policy's row (text, sha256, who, updated_at), None when the team has none."""
    from app.storage.engine import reader

    with reader(engine).connect() as conn:
        row = conn.execute("SELECT text, sha256, who, updated_at FROM team_policy WHERE name = ?", (KEY,)).first()
    return dict(row._mapping) if row is not None else None


def check_text(text: str) -> list[str]:
    """Refuse a text that is not a policy (TeamPolicyError); the problems of rules that would not apply."""
    from app.permissions.policy import rules_from_table

    if len(text.encode("utf-8")) > LIMIT:
        raise TeamPolicyError(f"the team policy is over {LIMIT // 1024} KB; keep it to rules")
    data, problem = _parse_toml(SHOWN_AS, text)
    if data is None:
        raise TeamPolicyError(problem)
    _rules, problems = rules_from_table(data, scope="team", path=None, text=text, header="[[rules]]")
    notes = [str(p) for p in problems]
    if data.get("hooks"):
        notes.append("hooks are not taken from the team's policy (they stay in each machine's config): ignored")
    return notes


def store_text(engine: Any, text: str) -> list[str]:
    """Write `text` as the team's policy (every instance must review it again); the problems of rules
    in it that would not apply. TeamPolicyError when it is no policy at all."""
    from app.storage.identity import who

    notes = check_text(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    with engine.begin() as conn:
        conn.execute("INSERT INTO team_policy (name, text, sha256, updated_at, who) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT(name) DO UPDATE SET text = excluded.text, sha256 = excluded.sha256, "
                     "updated_at = excluded.updated_at, who = excluded.who", (KEY, text, digest, time.time(), who()))
    return notes


def clear(engine: Any) -> bool:
    """Remove the team's policy; whether there was one."""
    with engine.begin() as conn:
        had = conn.execute("SELECT 1 FROM team_policy WHERE name = ?", (KEY,)).first() is not None
        conn.execute("DELETE FROM team_policy WHERE name = ?", (KEY,))
    return had


def read_team(engine: Any | None, data_dir: Path | None) -> ProjectFile:
    """The team's policy as stored now, with this instance's review state ("none" without a store or a
    policy; without a data dir it is never accepted)."""
    row = stored(engine) if engine is not None else None
    if row is None:
        return ProjectFile(SHOWN_AS, "none", kind="team")
    text = row["text"]
    data, problem = _parse_toml(SHOWN_AS, text)
    author = " ".join(str(row.get("who") or "").split())
    if data is None:
        return ProjectFile(SHOWN_AS, "unreadable", text, problem=problem, kind="team", author=author)
    found = ProjectFile(SHOWN_AS, "unreviewed", text, data, kind="team", author=author, review_dir=data_dir)
    if accepted_in_dir(data_dir) == found.digest:
        found.state = "accepted"
    return found
