"""What a project file would make Whimbrel run, in words for its review (the policy screen, `whimbrel
policy review`): each MCP server of `.mcp.json` with the command line or URL it starts, its working
directory, environment and headers; each hook of `.whimbrel/policy.toml` with its command; the mode a
project skill sets. Values are
shown as written (`${VAR}` literal, since a project's file expands only what config.toml allows, said
here too), credential-shaped ones masked. The text is the file's, so it is hostile: callers show it inert.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Mapping

from app.permissions.project import ProjectFile
from app.vocabulary.secrets import REDACTED, mask, secret_named

_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")  # `${VAR}`: names a value, holds none
STATE_WORDS = {"none": "absent", "accepted": "accepted", "unreviewed": "NEW OR CHANGED: not applied until you "
               "accept it", "unreadable": "cannot be read"}


@dataclass
class FileReview:
    """One project file for review: a heading, its state, and one line per thing it would run."""

    file: ProjectFile
    title: str
    lines: list[str] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        return self.file.state == "unreviewed"


def _shown(name: str, value: str) -> str:
    """A value for the review: masked when it looks like a credential or its name says secret (a
    `${VAR}` reference is shown as it is: it holds nothing)."""
    masked = mask(value)
    literal = _REFERENCE.sub("", value).strip().lower() in ("", "bearer", "basic", "token")
    if masked == value and secret_named(name) and not literal:
        return (value[:4] + "…" + REDACTED) if len(value) > 12 else REDACTED
    return masked


def _pairs(table: Any) -> list[tuple[str, str]]:
    return [(str(k), str(v)) for k, v in table.items()] if isinstance(table, Mapping) else []


def server_lines(name: str, entry: Any, allowed: tuple[str, ...]) -> list[str]:
    """What one `.mcp.json` server would run, as lines."""
    if not isinstance(entry, Mapping):
        return [f"{name}: not an object (it will not start)"]
    kind = entry.get("type", entry.get("transport")) or ("http" if "url" in entry and "command" not in entry
                                                         else "stdio")
    if kind == "stdio" or "command" in entry:
        args = entry.get("args", [])
        words = [str(entry.get("command", ""))] + ([str(a) for a in args] if isinstance(args, list) else [])
        out = [f"{name}: runs  {shlex.join(mask(w) for w in words)}"]
        if entry.get("cwd"):
            out.append(f"    in  {entry['cwd']}")
        out += [f"    env {k}={_shown(k, v)}" for k, v in _pairs(entry.get("env"))]
    else:
        out = [f"{name}: connects to  {mask(str(entry.get('url', '')))}  ({kind})"]
        out += [f"    header {k}: {_shown(k, v)}" for k, v in _pairs(entry.get("headers"))]
    out.append(f"    expands {', '.join('${' + v + '}' for v in allowed)} (config.toml [mcp.project_env])"
               if allowed else "    expands no ${VAR}: each stays as written")
    return out


def mcp_review(file: ProjectFile, project_env: Mapping[str, tuple[str, ...]]) -> FileReview:
    """The `.mcp.json` review: every server it defines and what it would run."""
    review = FileReview(file, f"MCP servers {file.path.name}")
    if file.state == "unreadable":
        review.lines.append(file.problem)
        return review
    data = file.data or {}
    servers = data.get("mcpServers", data.get("servers", data))
    if not isinstance(servers, Mapping) or not servers:
        review.lines.append("(no servers)")
        return review
    for name, entry in servers.items():
        review.lines += server_lines(str(name), entry, tuple(project_env.get(str(name), ())))
    return review


def policy_review(file: ProjectFile) -> FileReview:
    """The `.whimbrel/policy.toml` review: how many rules, and each hook's command."""
    review = FileReview(file, "Policy .whimbrel/policy.toml")
    if file.state == "unreadable":
        review.lines.append(file.problem)
        return review
    data = file.data or {}
    rules = sum(len(data.get(d, [])) for d in ("allow", "ask", "deny") if isinstance(data.get(d), list))
    rules += len(data.get("rules", [])) if isinstance(data.get("rules"), list) else 0
    if rules:
        review.lines.append(f"{rules} rule(s): the policy screen lists them once accepted")
    hooks = data.get("hooks", {})
    for event, entries in (hooks.items() if isinstance(hooks, Mapping) else ()):
        for entry in entries if isinstance(entries, list) else [entries]:
            specs = entry.get("hooks", []) if isinstance(entry, Mapping) else []
            matcher = entry.get("matcher", "") if isinstance(entry, Mapping) else ""
            for spec in specs if isinstance(specs, list) else []:
                if isinstance(spec, Mapping):
                    on = f" ({matcher})" if matcher else ""
                    review.lines.append(f"hook {event}{on}: runs  {mask(str(spec.get('command', '')))}")
    if not review.lines:
        review.lines.append("(no rules or hooks)")
    return review


def skill_review(file: ProjectFile) -> FileReview:
    """A project skill that sets a permission mode: the mode it would switch its workstream to."""
    mode = (file.data or {}).get("permission_mode", "(see the file)")
    return FileReview(file, f"Skill .whimbrel/skills/{file.path.name}",
                      [f"sets permission_mode = {mode} when you start it"])


def team_review(file: ProjectFile) -> FileReview:
    """The team's policy from the store: who set it, and every rule it holds (the rules are what it
    changes here; hooks are never taken from it)."""
    from app.permissions.policy import rules_from_table

    by = f", set by {file.author}" if file.author else ""
    review = FileReview(file, f"Team policy (in the store{by})")
    if file.state == "unreadable" or file.data is None:
        review.lines.append(file.problem)
        return review
    rules, problems = rules_from_table(file.data, scope="team", path=None, text=file.text, header="[[rules]]")
    review.lines += [f"{rule.decision:5} {rule.spec}" + ("  (network)" if rule.network else "") for rule in rules]
    review.lines += [f"not applied: {problem}" for problem in problems]
    if file.data.get("hooks"):
        review.lines.append("hooks: ignored (a team's policy sets rules only)")
    if not review.lines:
        review.lines.append("(no rules)")
    return review


def reviews(files: list[ProjectFile], project_env: Mapping[str, tuple[str, ...]]) -> list[FileReview]:
    """The present project files (and the team's policy), each with what it would run."""
    by_kind = {"mcp": lambda f: mcp_review(f, project_env), "policy": policy_review, "skill": skill_review,
               "team": team_review}
    return [by_kind[f.kind](f) for f in files if f.state != "none"]


def review_text(files: list[ProjectFile], project_env: Mapping[str, tuple[str, ...]]) -> str:
    """The reviews as plain text (the CLI); state words included."""
    out = []
    for review in reviews(files, project_env):
        out.append(f"{review.title} ({review.file.path}): {STATE_WORDS[review.file.state]}")
        out += [f"  {line}" for line in review.lines]
    return "\n".join(out)
