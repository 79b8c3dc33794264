"""The policy screen (palette, /policy): every rule with its scope and place, the broken ones and why,
the project files that start things (`.whimbrel/policy.toml`, `.mcp.json`) with their review state and
what each would run; add a rule, delete the selected one (d, after a yes), accept the project files shown (A).

Focus starts in the new rule's field, where typing is expected; when project files wait for review it
starts on the rules, where A (accept) and d work."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Select, Static

from widgets.key_hints import key_hint
from app.vocabulary.inert import inert
from styles import STYLES_DIR

DECISION_STYLES = {"deny": "bold red", "ask": "yellow", "allow": "green"}


class PolicyScreen(ModalScreen[None]):
    CSS_PATH = STYLES_DIR / "policy.tcss"
    BINDINGS = [
        Binding("escape", "dismiss_screen", "Close", priority=True, id="policy.close"),
        Binding("d", "delete_rule", "Delete rule", id="policy.delete_rule"),
        Binding("A", "accept_project", "Accept project files", id="policy.accept_project_file"),
    ]

    def __init__(self, setup) -> None:
        super().__init__()
        self.setup = setup  # app.engine.guards.PermissionSetup
        self.rows: list = []

    def compose(self) -> ComposeResult:
        with Vertical(id="policy-dialog"):
            yield Static(Text("Permission rules", style="bold"), id="policy-heading")
            with VerticalScroll(id="policy-project-box"):
                yield Static("", id="policy-project")
            yield DataTable(id="policy-rules", cursor_type="row", zebra_stripes=True)
            yield Static("", id="policy-broken")
            with Horizontal(id="policy-add"):
                yield Input(placeholder="tool(pattern), e.g. bash(npm run test:*)", id="policy-new-rule")
                yield Select([(d, d) for d in ("allow", "ask", "deny")], value="allow", allow_blank=False,
                             id="policy-new-decision")
                yield Select([("this project", "project"), ("everywhere", "user")], value="project",
                             allow_blank=False, id="policy-new-scope")
                yield Button("Add", id="policy-add-button")
            yield Static("", id="policy-message")
            yield Static(f"[b]{key_hint(self, 'policy.delete_rule')}[/] delete the selected rule   "
                         f"[b]{key_hint(self, 'policy.accept_project_file')}[/] accept the project files shown   "
                         f"[b]{key_hint(self, 'policy.close')}[/] close",
                         id="policy-keys")

    def on_mount(self) -> None:
        from app.permissions.review import reviews

        table = self.query_one(DataTable)
        table.add_columns("decision", "scope", "rule", "where")
        self.show()
        loaded = self.setup.loaded
        waiting = loaded and any(review.waiting for review in reviews(loaded.project_files, _project_env(self.setup)))
        (table if waiting else self.query_one("#policy-new-rule", Input)).focus()

    def show(self) -> None:
        loaded = self.setup.loaded
        table = self.query_one(DataTable)
        table.clear()
        self.rows = self.setup.rules_in_force()
        for rule in self.rows:
            table.add_row(Text(rule.decision, style=DECISION_STYLES[rule.decision]), rule.scope,
                          Text(inert(rule.spec, multiline=False)), Text(inert(rule.where, multiline=False)))
        problems = loaded.policy.problems if loaded else []
        broken = Text()
        if problems:
            broken.append(f"{len(problems)} broken rule(s), not applied:\n", style="bold red")
            for problem in problems:
                broken.append(f"  ✖ {inert(problem.spec, multiline=False)}", style="red")
                broken.append(f"  {inert(problem.where, multiline=False)}: {inert(problem.reason)}\n")
        for notice in (loaded.hook_problems if loaded else []):
            broken.append(f"  ✖ {inert(notice)}\n", style="red")
        self.query_one("#policy-broken", Static).update(broken)
        self.query_one("#policy-project", Static).update(project_text(self.setup))

    def _message(self, text: str, style: str = "") -> None:
        self.query_one("#policy-message", Static).update(Text(inert(text), style=style))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._add()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._add()

    def _add(self) -> None:
        spec = self.query_one("#policy-new-rule", Input).value.strip()
        if not spec:
            self._message("Write a rule first, such as bash(git status).", "yellow")
            return
        decision = self.query_one("#policy-new-decision", Select).value
        scope = self.query_one("#policy-new-scope", Select).value
        self._save(spec, str(decision), str(scope))

    @work(group="policy-edit", exclusive=True, exit_on_error=False)
    async def _save(self, spec: str, decision: str, scope: str) -> None:
        from app.permissions.rules import RuleError

        try:
            where = await self.setup.add_rule(spec, decision, scope)
        except (RuleError, OSError) as error:
            self._message(f"Not added: {error}", "bold red")
            return
        self.query_one("#policy-new-rule", Input).value = ""
        self._message(f"Added {decision} {spec} to {where}.", "green")
        self.show()

    def action_delete_rule(self) -> None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row is None or table.cursor_row >= len(self.rows):
            return
        rule = self.rows[table.cursor_row]
        from app.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(rule)
            else:
                self._message(f"Kept {rule.spec}.")

        self.app.push_screen(ConfirmScreen(f"Delete the rule {rule.decision} {inert(rule.spec, multiline=False)} "
                                           f"({rule.scope}, {inert(rule.where, multiline=False)})?"), answered)

    @work(group="policy-edit", exclusive=True, exit_on_error=False)
    async def _delete(self, rule) -> None:
        try:
            removed = await self.setup.delete_rule(rule.spec, rule.scope)
        except OSError as error:
            self._message(f"Not deleted: {error}", "bold red")
            return
        self._message(f"Deleted {rule.spec} ({rule.scope})." if removed else
                      f"{rule.spec} is not written in a file Whimbrel edits.", "green" if removed else "yellow")
        self.show()

    def action_accept_project(self) -> None:
        self._accept()

    @work(group="policy-edit", exclusive=True, exit_on_error=False)
    async def _accept(self) -> None:
        done = await self.setup.accept_project()
        names = ", ".join(str(found.path.name) for found in done)
        self._message(f"Accepted {names}: what it sets applies now." if done else
                      "Nothing waits for review.", "green" if done else "")
        self.show()

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)


def _project_env(setup):
    from app.permissions.project import project_env

    return project_env(getattr(setup, "config", None))


def project_text(setup) -> Text:
    """The project files that start things: each one's state and what it would run (its text inert)."""
    from app.permissions.review import STATE_WORDS, reviews

    loaded = setup.loaded
    found = reviews(loaded.project_files, _project_env(setup)) if loaded else []
    if not found:
        return Text("Project files: none (.whimbrel/policy.toml, .mcp.json)")
    text = Text()
    for review in found:
        text.append(f"{inert(review.title, multiline=False)}: ", style="bold")
        text.append(STATE_WORDS[review.file.state] + (" (A)" if review.waiting else "") + "\n",
                    style="bold yellow" if review.waiting else "")
        for line in review.lines:
            text.append(f"  {inert(line, multiline=False)}\n")
    text.rstrip()
    return text
