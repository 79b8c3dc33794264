"""The app's side of the permission engine: load rules at boot, Shift+Tab through the modes,
/network on|off per workstream, accept a project policy file, and open the policy and audit screens.

The App holds one PermissionWiring (the App passed in: its options, store, models, focused workstream
and Textual's App API); the engine side is app/engine/guards.py.
"""

from __future__ import annotations


class PermissionWiring:
    """The permission set-up for one App (`setup`, an app.engine.guards.PermissionSetup once booted,
    None before) and the window's ways to it: modes, /network, the approval modal's judge and places,
    the policy and audit screens."""

    def __init__(self, app) -> None:
        self.app = app
        self.setup = None

    async def load(self) -> None:
        """Read rules and hooks (off the UI thread); broken rules and unreviewed files are told."""
        from app.engine.guards import PermissionSetup
        from app.permissions.gate import protected_places

        app = self.app
        options, store = app.options, app.store
        self.setup = PermissionSetup(
            options.config, options.workdir.resolve(), store, bypass=options.bypass,
            protected=protected_places(options.workdir, options.data_dir, options.config_path),
            config_file=options.config_path, data_dir=options.data_dir)
        loaded = await self.setup.load()
        if store is not None:  # the audit log keeps what the conversations keep
            from app.permissions.audit import prune

            await store.run(prune, store.store.engine, options.retention_days)
        for notice in loaded.notices:
            app.notify(notice, title="Permission rules", severity="warning", timeout=12)
        for notice in store.store.engine.notices if store is not None else []:  # app/storage/private.py
            app.notify(notice, title="File permissions", severity="warning", timeout=12)

    def guard_for(self, workstream_id: str, settings: dict):
        """The workstream's gate (app/engine/guards.py), None before the set-up is loaded."""
        return self.setup.guard_for(workstream_id, settings) if self.setup is not None else None

    def places(self) -> dict[str, str]:
        """Where an "Always" rule of each scope is written, for the rule dialog."""
        from app.permissions.project import policy_path

        options = self.app.options
        return {"workstream": "kept with this conversation (in the store)",
                "project": str(policy_path(options.workdir)), "user": str(options.config_path)}

    def cycle_mode(self) -> None:
        """Shift+Tab: ask → accept-edits → plan → auto for the focused workstream (kept with it)."""
        from app.engine import events as ev
        from app.permissions.modes import DESCRIPTIONS, next_mode

        app = self.app
        workstream = app.workstream
        if workstream is None:
            return
        if workstream.read_only:  # its mode is the other window's to change (the store would refuse it)
            app.notify("This workstream is open in another window: take it over first.", severity="warning")
            return
        gate = workstream.session.guard.gate
        if gate.mode == "bypass":
            app.notify("Bypass mode was chosen on the command line; restart without the flag to leave it.",
                       severity="warning")
            return
        gate.mode = next_mode(gate.mode)
        workstream.session.emit(ev.ModeChanged(gate.mode))
        app.notify(f"Mode: {gate.mode} — {DESCRIPTIONS[gate.mode]}", timeout=4)
        app.workspace.refresh_chrome()
        if app.store is not None and workstream.id:
            app.run_worker(app.store.set_config(workstream.id, "policy_mode", gate.mode), group="command",
                           exit_on_error=False)

    async def switch_network(self, workstream, args: str) -> str:
        """/network [on|off]: may this workstream's sandboxed commands use the network? Kept with it;
        returns the sentence for the transcript (CommandError for a bad argument)."""
        from app.engine.commands import CommandError

        app = self.app
        guard = workstream.session.guard
        word = args.strip().lower()
        if word not in ("", "on", "off"):
            raise CommandError("Usage: /network [on|off]")
        if not guard.sandboxed:
            return "No OS sandbox here: commands run unsandboxed and already reach the network."
        if word:
            guard.gate.network = word == "on"
            app.workspace.refresh_chrome()
            if app.store is not None and workstream.id:
                await app.store.set_config(workstream.id, "policy_network", guard.gate.network)
        state = "on: sandboxed commands may reach the network" if guard.gate.network else \
            "off: sandboxed commands have no network (a rule with network = true still grants it)"
        return f"Network for this workstream is {state}."

    def approval_judge(self):
        """(alias, ask) for the approval modal when `[policy] judge` names a model, else None; an alias
        that names no model still gets a line in the modal saying so."""
        config = getattr(self.setup, "config", None) or self.app.options.config  # as reloaded from disk
        alias = getattr(config, "policy_judge", None)
        if not alias:
            return None
        from app.permissions.judge import Opinion, second_opinion

        timeout = float(getattr(config, "policy_judge_timeout", 30.0))
        models = self.app.models

        async def ask(item):
            if models is None or alias not in models:
                return Opinion("error", f"[policy] judge names no configured model: {alias!r}", alias)
            return await second_opinion(models.provider(alias), item, alias, timeout)

        return alias, ask

    def open_policy_screen(self) -> None:
        """/policy and the palette: the rules and the project files' review."""
        if self.setup is not None:
            self.app.run_worker(self._open_policy_screen(), group="policy-screen", exclusive=True,
                                exit_on_error=False)

    async def _open_policy_screen(self) -> None:
        """The policy screen over the rules and project files as they are now (a project file may have
        changed since boot: the review shows, and A accepts, what is on disk)."""
        from app.tui.screens.policy import PolicyScreen

        await self.setup.load()
        self.app.push_screen(PolicyScreen(self.setup))

    def open_audit_screen(self) -> None:
        """/audit and the palette: every tool call and who decided."""
        from app.tui.screens.audit import AuditScreen

        if self.app.store is not None:
            self.app.push_screen(AuditScreen(self.app.store))
