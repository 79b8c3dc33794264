"""Everything the permission engine needs for a workspace, loaded from the config, the project file
and the store: the policy (rules of every scope, the team's from the store once this instance accepted
them), the hooks, and what is broken or waiting."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.permissions.hooks import Hook, parse_hooks
from app.permissions.policy import Policy, Problem, rules_from_table
from app.permissions.project import ProjectFile, read_mcp_file, read_project, read_skill_files
from app.permissions.rules import Rule
from app.permissions.team_policy import read_team


@dataclass
class Loaded:
    policy: Policy
    hooks: list[Hook]
    project: ProjectFile
    hook_problems: list[str] = field(default_factory=list)
    mcp: ProjectFile | None = None  # the project's .mcp.json, as read with its review state
    skills: list[ProjectFile] = field(default_factory=list)  # project skills that set a permission mode
    team: ProjectFile | None = None  # the team's policy in the store, with this instance's review state

    @property
    def project_files(self) -> list[ProjectFile]:
        """The files that start things, as read (what a review shows and accepts): the project's, and
        the team's policy from the store."""
        return ([self.project] + ([self.mcp] if self.mcp is not None else []) + self.skills
                + ([self.team] if self.team is not None else []))

    @property
    def notices(self) -> list[str]:
        """What the user should hear at startup: broken rules, a project file waiting for review."""
        out = [str(p) for p in self.policy.problems] + self.hook_problems
        return out + [notice for found in self.project_files if (notice := found.notice())]


def load(config: Any, workspace: Path, engine: Any | None = None, extra: list[Rule] | None = None, *,
         data_dir: Path | None = None) -> Loaded:
    """The user's rules ([policy] in config.toml), the accepted project file's, the team's (from the
    store, when accepted in `data_dir`: app/permissions/team_policy.py), and `extra` ones."""
    workspace = Path(workspace).resolve()
    config_path = Path(config.path) if getattr(config, "path", None) else None
    try:
        config_text = config_path.read_text(encoding="utf-8") if config_path else ""
    except OSError:
        config_text = ""
    rules, problems = rules_from_table(getattr(config, "policy_rules", {}) or {}, scope="user", path=config_path,
                                       text=config_text)
    hooks, hook_problems = parse_hooks(getattr(config, "hooks", {}) or {}, "user", str(config_path or "config"))
    project = read_project(workspace, engine)
    if project.state == "accepted" and project.data is not None:
        more, more_problems = rules_from_table(project.data, scope="project", path=project.path, text=project.text,
                                               header="[[rules]]")
        rules += more
        problems += more_problems
        project_hooks, project_hook_problems = parse_hooks(project.data.get("hooks", {}), "project",
                                                           str(project.path))
        hooks += project_hooks
        hook_problems += project_hook_problems
    team = read_team(engine, data_dir) if engine is not None else None
    if team is not None and team.state == "accepted" and team.data is not None:
        more, more_problems = rules_from_table(team.data, scope="team", path=None, text=team.text, header="[[rules]]")
        rules += more
        problems += more_problems
    rules += extra or []
    return Loaded(Policy(rules, problems, workspace), hooks, project, hook_problems, read_mcp_file(workspace, engine),
                  read_skill_files(workspace, engine), team)


def workstream_rules(saved: list[Any]) -> list[Rule]:
    """Rules a workstream saved from the modal (stored as [{rule, decision}] in its config)."""
    out = []
    for entry in saved or []:
        try:
            out.append(Rule(entry["rule"], entry.get("decision", "allow"), "workstream", "this workstream"))
        except (KeyError, TypeError, ValueError):
            continue
    return out


