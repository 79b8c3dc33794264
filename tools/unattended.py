"""The permission engine for faces where nobody can answer (`whimbrel run`, `whimbrel mcp serve`): the
same rules, project file, hooks, modes, risk, sandbox and audit rows as the TUI, the command line's
rules (app/permissions/unattended.py) on top, and every call that would ask refused with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.permissions import audit, loader
from app.permissions.gate import Gate, protected_places
from app.permissions.modes import check_mode
from app.permissions.rules import Rule
from app.sandbox import jail
from tools.guard import CallGuard


async def unattended_guard(*, config: Any, workspace: Path, data_dir: Path, config_path: Path, store: Any,
                           mode: str, rules: list[Rule], nobody: str) -> CallGuard:
    """One guard for the run; `store` (an AsyncStore, or None) gets the audit rows; `nobody` ends the
    reason of each refused ask (`{tool}` becomes the tool's name). Broken rules wait in its notices."""
    workspace = Path(workspace).resolve()
    if store is None:
        return guard_from(loader.load(config, workspace, None, rules), config=config, workspace=workspace,
                          data_dir=data_dir, config_path=config_path, mode=mode, nobody=nobody)
    loaded = await store.run(loader.load, config, workspace, store.store.engine, rules, data_dir=data_dir)
    guard = guard_from(loaded, config=config, workspace=workspace, data_dir=data_dir, config_path=config_path,
                       mode=mode, nobody=nobody)

    async def sink(row: audit.AuditRow) -> None:
        await store.run(audit.append, store.store.engine, row)

    guard.audit_sink = sink
    return guard


def guard_from(loaded: loader.Loaded, *, config: Any, workspace: Path, data_dir: Path, config_path: Path,
               mode: str, nobody: str) -> CallGuard:
    """The guard for what `loaded` holds (no audit sink: the caller attaches its store's)."""
    protected = protected_places(Path(workspace).resolve(), data_dir, config_path)
    jail.configure(config, protected)  # [sandbox]: what commands may see from the environment, their limits
    gate = Gate(loaded.policy, check_mode(mode), protected=protected,
                network=bool(getattr(config, "policy_network", False)))
    guard = CallGuard(gate, hooks=list(loaded.hooks), sandbox_level=getattr(config, "policy_sandbox", "workspace-write"),
                      hidden=list(protected), unattended=nobody)
    gate.sandboxed = guard.sandboxed
    guard.notices.extend(loaded.notices)
    return guard
