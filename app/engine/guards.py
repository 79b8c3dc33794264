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
from app.permissions.project import accept_files
from app.sandbox import jail
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
    config_file: Path | None = None  # where "everywhere" rules go (the app's --config path)
    data_dir: Path | None = None  # where this instance keeps its acceptance of the team's policy
    on_accepted: list[Any] = field(default_factory=list)  # async callbacks(loaded) after project files are accepted
    _guards: weakref.WeakSet = field(default_factory=weakref.WeakSet)

    @property
    def engine(self) -> Any:
        return self.store.store.engine if self.store is not None else None

    @property
    def config_path(self) -> Path:
        return Path(self.config_file or getattr(self.config, "path", None) or "config.toml")

    async def load(self) -> loader.Loaded:
        """(Re)read config rules, the project file and its review state; every guard gets them."""
        self.config = await self._run(_fresh_config, self.config, self.config_path)
        if self.store is not None:
            self.loaded = await self.store.run(loader.load, self.config, self.workspace, self.engine,
                                               data_dir=self.data_dir)
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
        jail.configure(self.config, self.protected)  # [sandbox]: what commands may see from the environment, their limits
        network = saved.get("policy_network", getattr(self.config, "policy_network", False))
        gate = Gate(loaded.policy, self.default_mode(saved), protected=list(self.protected),
                    network=network if isinstance(network, bool) else False)
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

    async def add_rule(self, spec: str, decision: str, scope: str) -> str:
        """The policy screen's "add": a rule of any decision into the project file or config.toml."""
        from app.permissions.rules import Rule

        Rule(spec, decision)  # RuleError tells the user what is wrong with it
        if scope == "project":
            path = await self._run(writer.save_project_rule, self.workspace, self.engine, spec, decision)
        else:
            path = await self._run(writer.save_user_rule, self.config_path, spec, decision)
        await self.load()
        return str(path)

    async def delete_rule(self, spec: str, scope: str) -> bool:
        """Delete a rule from where it is written (workstream rules go from every open guard)."""
        if scope == "project":
            removed = await self._run(writer.remove_project_rule, self.workspace, self.engine, spec)
        elif scope == "user":
            removed = await self._run(writer.remove_user_rule, self.config_path, spec)
        else:
            removed = False
            for guard in list(self._guards):
                kept = [r for r in guard.workstream_rules if r.spec != spec]
                if len(kept) != len(guard.workstream_rules):
                    guard.workstream_rules = kept
                    removed = True
                    if guard.on_workstream_rules is not None:
                        await guard.on_workstream_rules([{"rule": r.spec, "decision": r.decision} for r in kept])
        await self.load()
        return removed

    def rules_in_force(self) -> list:
        """Every applied rule, workstream ones of all open guards included (each once)."""
        seen, out = set(), []
        rules = list(self.loaded.policy.rules if self.loaded else [])
        for guard in list(self._guards):
            rules += guard.workstream_rules
        for rule in rules:
            key = (rule.spec, rule.decision, rule.scope)
            if key not in seen:
                seen.add(key)
                out.append(rule)
        return out

    async def accept_project(self) -> list[Any]:
        """The user accepted the project files waiting for review, as they were shown (the texts last
        loaded); every `on_accepted` callback then hears of those accepted (the app starts the servers)."""
        if self.loaded is None or self.engine is None:
            return []
        done = await self._run(accept_files, self.engine, self.loaded.project_files)
        loaded = await self.load()
        for callback in list(self.on_accepted):
            await callback(loaded)
        return done

    async def _run(self, fn, *args):
        if self.store is not None:
            return await self.store.run(fn, *args)
        return fn(*args)


def _fresh_config(config: Any, path: Path) -> Any:
    """The config file as it is now (a rule may have been saved to it); the loaded one when it no
    longer loads (the user hears of that from the config's own checks at the next start)."""
    from app.settings.config import ConfigError, load_config

    try:
        return load_config(Path(path))
    except ConfigError:
        return config
