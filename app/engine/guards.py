"""The permission setup of a running app: rules and hooks loaded once, one CallGuard per workstream,
rules saved from the modal written where the user chose and reloaded into every guard."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.permissions import audit, loader, writer
from app.permissions.gate import Gate
from app.permissions.modes import Mode, check_mode
from app.permissions.project import accept, read_project
from tools.guard import CallGuard

SCOPE_NAMES = {"workstream": "this workstream", "project": "this project", "user": "everywhere"}


@dataclass
class PermissionSetup:
    """Loaded once at boot (off the UI thread); `guard_for` builds each session's gate."""

    config: Any
    workspace: Path
    store: Any = None  # an AsyncStore (audit rows, project reviews, workstream rules)
    loaded: loader.Loaded | None = None
    bypass: bool = False
    protected: list[Path] = field(default_factory=list)
    _guards: weakref.WeakSet = field(default_factory=weakref.WeakSet)

    @property
    def engine(self) -> Any:
        return self.store.store.engine if self.store is not None else None

    @property
    def config_path(self) -> Path:
        return Path(getattr(self.config, "path", "config.toml"))

    async def load(self) -> loader.Loaded:
        """(Re)read config rules, the project file and its review state; every guard gets them."""
        self.config = await self._run(_fresh_config, self.config)
        if self.store is not None:
            self.loaded = await self.store.run(loader.load, self.config, self.workspace, self.engine)
        else:
            self.loaded = loader.load(self.config, self.workspace, None)
        for guard in list(self._guards):
            guard.replace_policy(self.loaded.policy)
            guard.hooks = list(self.loaded.hooks)
        return self.loaded

    def default_mode(self, saved: dict[str, Any]) -> Mode:
        if self.bypass:
            return "bypass"
        for value in (saved.get("policy_mode"), getattr(self.config, "policy_mode", "ask")):
            try:
                return check_mode(value)
            except ValueError:
                continue
        return "ask"

    def guard_for(self, workstream_id: str, saved: dict[str, Any]) -> CallGuard:
        """A gate for one workstream, with the rules it saved and its mode."""
        loaded = self.loaded or loader.load(self.config, self.workspace, None)
        level = getattr(self.config, "policy_sandbox", "workspace-write")
        gate = Gate(loaded.policy, self.default_mode(saved), protected=list(self.protected),
                    network=bool(getattr(self.config, "policy_network", False)))
        guard = CallGuard(gate, hooks=list(loaded.hooks), sandbox_level=level, hidden=list(self.protected))
        gate.sandboxed = guard.sandboxed
        rules = loader.workstream_rules(saved.get("policy_rules", []))
        guard.workstream_rules = rules
        guard.replace_policy(loaded.policy)
        if self.store is not None:
            store = self.store

            async def sink(row: audit.AuditRow) -> None:
                await store.run(audit.append, store.store.engine, row)

            async def keep_rules(entries: list[dict[str, str]]) -> None:
                if workstream_id:
                    await store.set_config(workstream_id, "policy_rules", entries)

            guard.audit_sink = sink
            guard.on_workstream_rules = keep_rules
        guard.save_rules = self.save_rules
        self._guards.add(guard)
        return guard

    async def save_rules(self, specs: list[str], scope: str) -> str:
        """Write "Always" rules to the project file or config.toml; returns the file written."""
        if scope == "project":
            path = None
            for spec in specs:
                path = await self._run(writer.save_project_rule, self.workspace, self.engine, spec)
        elif scope == "user":
            path = None
            for spec in specs:
                path = await self._run(writer.save_user_rule, self.config_path, spec)
        else:
            return f"not saved: unknown scope {scope!r}"
        await self.load()
        return f"{SCOPE_NAMES[scope]}: {path}"

    async def accept_project(self) -> None:
        """The user accepted the project policy file as it is now."""
        project = await self._run(read_project, self.workspace, self.engine)
        if project.text and self.engine is not None:
            await self._run(accept, self.engine, project.path, project.text)
        await self.load()

    async def _run(self, fn, *args):
        if self.store is not None:
            return await self.store.run(fn, *args)
        return fn(*args)


def _fresh_config(config: Any) -> Any:
    """The config file as it is now (a rule was saved to it); the loaded one if it no longer loads."""
    from app.config import ConfigError, load_config

    path = getattr(config, "path", None)
    if path is None:
        return config
    try:
        return load_config(Path(path))
    except ConfigError:
        return config

